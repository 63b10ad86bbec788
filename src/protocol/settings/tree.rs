//! An order-keeping JSON tree for settings files: objects keep their keys in the order the file
//! has them, so a merge rewrites only what it changes (`serde_json::Value` sorts keys unless a
//! crate-wide feature is on, which would reorder a person's file).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// One JSON value; objects are ordered lists of (key, value).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// An object from (key, value) pairs.
    pub(crate) fn object<const N: usize>(pairs: [(&str, Json); N]) -> Json {
        Json::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    }

    /// A string value.
    pub(crate) fn str(s: &str) -> Json {
        Json::String(s.to_owned())
    }

    /// The value of `key` when this is an object that has it.
    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string inside, if this is one.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }
}

/// Whether two values are equal, ignoring the order of object keys.
pub(crate) fn equivalent(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.iter()
                        .find(|(k2, _)| k2 == k)
                        .is_some_and(|(_, v2)| equivalent(v, v2))
                })
        }
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| equivalent(v, w))
        }
        _ => a == b,
    }
}

/// The value of `key` in an object's pairs, mutably.
pub(crate) fn get_mut<'a>(pairs: &'a mut [(String, Json)], key: &str) -> Option<&'a mut Json> {
    pairs.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// The value of `key` in an object's pairs, appended as `default` when absent.
pub(crate) fn entry<'a>(
    pairs: &'a mut Vec<(String, Json)>,
    key: &str,
    default: Json,
) -> &'a mut Json {
    let at = match pairs.iter().position(|(k, _)| k == key) {
        Some(at) => at,
        None => {
            pairs.push((key.to_owned(), default));
            pairs.len() - 1
        }
    };
    &mut pairs[at].1
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => ser.serialize_unit(),
            Json::Bool(b) => ser.serialize_bool(*b),
            Json::Number(n) => n.serialize(ser),
            Json::String(s) => ser.serialize_str(s),
            Json::Array(items) => {
                let mut seq = ser.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(pairs) => {
                let mut map = ser.serialize_map(Some(pairs.len()))?;
                for (k, v) in pairs {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(v)
            .map(Json::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        Json::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut pairs: Vec<(String, Json)> = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            // A repeated key: the last one wins, in the place of the first (as JSON.parse does).
            match get_mut(&mut pairs, &k) {
                Some(slot) => *slot = v,
                None => pairs.push((k, v)),
            }
        }
        Ok(Json::Object(pairs))
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_key_order_and_values() {
        let text = r#"{"z":1,"a":[true,null,"s",-2,1.5],"m":{"y":{},"b":[]}}"#;
        let v: Json = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), text);
    }

    #[test]
    fn equivalence_ignores_key_order_only() {
        let a: Json = serde_json::from_str(r#"{"a":1,"b":[{"c":2,"d":3}]}"#).unwrap();
        let b: Json = serde_json::from_str(r#"{"b":[{"d":3,"c":2}],"a":1}"#).unwrap();
        let c: Json = serde_json::from_str(r#"{"b":[{"d":3,"c":2}],"a":2}"#).unwrap();
        assert!(equivalent(&a, &b));
        assert!(!equivalent(&a, &c));
    }

    #[test]
    fn repeated_key_keeps_first_place_last_value() {
        let v: Json = serde_json::from_str(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"a":3,"b":2}"#);
    }
}
