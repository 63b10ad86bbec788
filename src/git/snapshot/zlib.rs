//! zlib's deflate for the loose objects a snapshot writes, sized to the object: a small
//! object gets a small window and hash table, so the compressor neither allocates nor clears
//! the 256 KiB that zlib's defaults (and libgit2's loose writer) take for every object.

#![allow(unsafe_code)]

use std::os::raw::{c_int, c_uint, c_ulong};

use libz_sys as z;

/// zlib's allocator: `calloc`, which zlib's own default uses too.
unsafe extern "C" fn zalloc(_opaque: z::voidpf, items: z::uInt, size: z::uInt) -> z::voidpf {
    // SAFETY: `calloc` takes any sizes and returns null on failure, which zlib checks.
    unsafe { libc::calloc(items as usize, size as usize) }
}

/// zlib's deallocator, for what [`zalloc`] returned.
unsafe extern "C" fn zfree(_opaque: z::voidpf, address: z::voidpf) {
    // SAFETY: zlib frees only what `zalloc` (that is, `calloc`) gave it, once.
    unsafe { libc::free(address) }
}

/// The zlib stream (RFC 1950) of `data` at level 1 (git's default for loose objects), with a
/// window just large enough for it; `None` when zlib fails (out of memory) or `data` is over
/// 4 GiB.
pub(super) fn deflate(data: &[u8]) -> Option<Vec<u8>> {
    let len = u32::try_from(data.len()).ok()?;
    // The smallest window (2^10 to 2^15 bytes) that covers the data, and a hash table to match.
    let needed = usize::BITS - data.len().max(1).leading_zeros();
    let window = needed.clamp(10, 15) as c_int;
    let mem_level = if data.len() > 64 << 10 {
        8
    } else {
        (window - 10).clamp(2, 8)
    };
    let mut stream = z::z_stream {
        next_in: std::ptr::null_mut(),
        avail_in: 0,
        total_in: 0,
        next_out: std::ptr::null_mut(),
        avail_out: 0,
        total_out: 0,
        msg: std::ptr::null_mut(),
        state: std::ptr::null_mut(),
        zalloc,
        zfree,
        opaque: std::ptr::null_mut(),
        data_type: 0,
        adler: 0,
        reserved: 0,
    };
    let size = c_int::try_from(std::mem::size_of::<z::z_stream>()).ok()?;
    // SAFETY: `stream` is fully initialised with working allocators, and stays at this address
    // (a local, never moved) until `deflateEnd` below; the version string is zlib's own.
    let rc = unsafe {
        z::deflateInit2_(
            &raw mut stream,
            1,
            z::Z_DEFLATED,
            window,
            mem_level,
            z::Z_DEFAULT_STRATEGY,
            z::zlibVersion(),
            size,
        )
    };
    if rc != z::Z_OK {
        return None;
    }
    // SAFETY: the stream was initialised just above.
    let bound = unsafe { z::deflateBound(&raw mut stream, c_ulong::from(len)) };
    let mut out: Vec<u8> = Vec::with_capacity(usize::try_from(bound).ok()?);
    stream.next_in = data.as_ptr().cast_mut();
    stream.avail_in = len;
    stream.next_out = out.as_mut_ptr();
    stream.avail_out = c_uint::try_from(out.capacity()).ok()?;
    // SAFETY: zlib reads `avail_in` bytes of `data` (only read, though the pointer is `*mut`)
    // and writes at most `avail_out` bytes into `out`'s spare capacity; with an output buffer
    // of `deflateBound` bytes and `Z_FINISH`, one call finishes the stream.
    let rc = unsafe { z::deflate(&raw mut stream, z::Z_FINISH) };
    let written = out.capacity() - stream.avail_out as usize;
    // SAFETY: the stream was initialised above and is ended once.
    unsafe { z::deflateEnd(&raw mut stream) };
    if rc != z::Z_STREAM_END {
        return None;
    }
    // SAFETY: zlib initialised the first `written` bytes of the buffer.
    unsafe { out.set_len(written) };
    Some(out)
}

#[cfg(test)]
mod tests {
    /// zlib's own one-shot inflate.
    fn inflate(stream: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; 1 << 20];
        let mut out_len: libz_sys::uLongf = out.len() as _;
        // SAFETY: both buffers are valid for the lengths given.
        let rc = unsafe {
            libz_sys::uncompress(
                out.as_mut_ptr(),
                &raw mut out_len,
                stream.as_ptr(),
                stream.len() as _,
            )
        };
        assert_eq!(rc, libz_sys::Z_OK);
        out.truncate(out_len as usize);
        out
    }

    #[test]
    fn what_is_deflated_inflates_back_at_any_size() {
        for len in [0usize, 1, 100, 1023, 1024, 10_240, 70_000, 300_000] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let packed = super::deflate(&data).unwrap();
            assert_eq!(inflate(&packed), data, "{len} bytes");
        }
    }
}
