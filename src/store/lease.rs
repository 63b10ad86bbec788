//! A session lease read only when an age needs it: an age under the shortest lease any setting
//! can give (`dibs.ttl` has a floor) is within the lease whatever the setting says, so a call
//! that only meets young records reads no git config at all.

/// The lease (seconds), known to be at least `least`, read by `read` on first need.
pub(crate) struct Lease<F: FnOnce() -> u64> {
    least: u64,
    read: Option<F>,
    value: Option<u64>,
}

impl<F: FnOnce() -> u64> Lease<F> {
    /// A lease of at least `least` seconds whose length `read` tells (called once at most).
    pub(crate) fn new(least: u64, read: F) -> Self {
        Lease {
            least,
            read: Some(read),
            value: None,
        }
    }

    /// Whether something `age` seconds old is within the lease.
    pub(crate) fn within(&mut self, age: u64) -> bool {
        age < self.least || age < self.secs()
    }

    /// Whether something `age` seconds old is within the lease or at its very start (an age
    /// equal to the lease counts).
    pub(crate) fn reaches(&mut self, age: u64) -> bool {
        age <= self.least || age <= self.secs()
    }

    /// The lease's length in seconds (read now if it was not yet).
    pub(crate) fn secs(&mut self) -> u64 {
        if let Some(v) = self.value {
            return v;
        }
        let v = self
            .read
            .take()
            .map_or(self.least, |read| read())
            .max(self.least);
        self.value = Some(v);
        v
    }
}

/// A lease of exactly `secs` seconds (already known).
#[cfg(test)]
pub(crate) fn known(secs: u64) -> Lease<impl FnOnce() -> u64> {
    Lease::new(secs, move || secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn young_ages_need_no_read_and_older_ones_read_once() {
        let reads = Cell::new(0);
        let mut lease = Lease::new(600, || {
            reads.set(reads.get() + 1);
            7200
        });
        assert!(lease.within(0) && lease.within(599) && lease.reaches(600));
        assert_eq!(reads.get(), 0);
        assert!(lease.within(600) && lease.within(7199));
        assert!(!lease.within(7200) && lease.reaches(7200) && !lease.reaches(7201));
        assert_eq!(reads.get(), 1);
        assert_eq!(lease.secs(), 7200);
        assert_eq!(reads.get(), 1);
    }

    #[test]
    fn a_setting_under_the_floor_counts_as_the_floor() {
        let mut lease = Lease::new(600, || 5);
        assert!(lease.within(599));
        assert!(!lease.within(600));
        assert_eq!(lease.secs(), 600);
        assert!(!known(3600).within(3600));
        assert!(known(3600).within(3599));
    }
}
