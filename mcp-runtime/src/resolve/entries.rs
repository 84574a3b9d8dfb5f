//! A resolver-keyed map for the progress kept between rounds: a vector sorted by key.
//!
//! A call has a few resolvers, so its progress holds a few entries. A `BTreeMap` allocates
//! a node of eleven slots for its first entry (near a kilobyte for an answer, past the
//! allocator's per-thread cache); a sorted vector allocates what it holds, and keeps what
//! the map gave: one entry per key (the last inserted wins) and iteration, so encoding, in
//! key order.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// Entries by key, sorted by key, each key once.
#[derive(Clone, PartialEq)]
pub(crate) struct Entries<V>(Vec<(String, V)>);

impl<V> Default for Entries<V> {
    fn default() -> Self {
        Entries(Vec::new())
    }
}

impl<V> Entries<V> {
    fn at(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    /// The value under `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&V> {
        self.at(key).ok().map(|at| &self.0[at].1)
    }

    /// Put `value` under `key`, in place of any value it had.
    pub(crate) fn insert(&mut self, key: String, value: V) {
        match self.at(&key) {
            Ok(at) => self.0[at].1 = value,
            Err(at) => self.0.insert(at, (key, value)),
        }
    }

    /// The keys, in order.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }
}

impl<V> IntoIterator for Entries<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<V> Entries<V> {
    /// The entries of `pairs`, in any order and with keys repeated: sorted once (not
    /// inserted one by one, which moves the vector's tail for each out-of-order key), the
    /// last of a repeated key's values kept, as the map keeps it.
    fn of(mut pairs: Vec<(String, V)>) -> Self {
        // Reversed, then sorted stably: of a key's values, the last given comes first.
        pairs.reverse();
        pairs.sort_by(|(a, _), (b, _)| a.cmp(b));
        pairs.dedup_by(|(later, _), (earlier, _)| later == earlier);
        Entries(pairs)
    }
}

impl<V> FromIterator<(String, V)> for Entries<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        Entries::of(iter.into_iter().collect())
    }
}

impl<V: fmt::Debug> fmt::Debug for Entries<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.0.iter().map(|(k, v)| (k, v))).finish()
    }
}

impl<V: Serialize> Serialize for Entries<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Entries<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Read<V>(PhantomData<V>);

        impl<'de, V: Deserialize<'de>> Visitor<'de> for Read<V> {
            type Value = Entries<V>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries<V>, A::Error> {
                // Capacity from the hint, capped: the hint is the input's word.
                let mut pairs = Vec::with_capacity(map.size_hint().unwrap_or(0).min(16));
                while let Some(pair) = map.next_entry::<String, V>()? {
                    pairs.push(pair);
                }
                Ok(Entries::of(pairs))
            }
        }

        deserializer.deserialize_map(Read(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// Inserted in any order, with keys repeated, the entries are the map's: the same
    /// lookups, the same order, the same encoding, and read back the same.
    #[test]
    fn entries_behave_as_a_sorted_map() {
        let inserts = [("b", 1), ("a", 2), ("c", 3), ("a", 4), ("", 5), ("b", 6), ("ab", 7)];
        let mut entries = Entries::default();
        let mut map = BTreeMap::new();
        for (key, value) in inserts {
            entries.insert(key.to_owned(), value);
            map.insert(key.to_owned(), value);
        }
        assert_eq!(entries.keys().collect::<Vec<_>>(), map.keys().map(String::as_str).collect::<Vec<_>>());
        for key in ["", "a", "ab", "b", "c", "d", "aa"] {
            assert_eq!(entries.get(key), map.get(key), "{key}");
        }
        let text = serde_json::to_string(&entries).expect("test value");
        assert_eq!(text, serde_json::to_string(&map).expect("test value"));
        let read: Entries<i32> = serde_json::from_str(r#"{"b":1,"a":2,"b":3}"#).expect("test value");
        let read_map: BTreeMap<String, i32> = serde_json::from_str(r#"{"b":1,"a":2,"b":3}"#).expect("test value");
        assert_eq!(read.into_iter().collect::<Vec<_>>(), read_map.into_iter().collect::<Vec<_>>());
        let collected: Entries<i32> = inserts.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect();
        assert_eq!(collected, entries);
        // Many keys, descending and each twice: read as the map reads them.
        let text = format!(
            "{{{}}}",
            (0..2000)
                .rev()
                .flat_map(|n| [format!(r#""k{n:05}":{n}"#), format!(r#""k{n:05}":{}"#, -n)])
                .collect::<Vec<_>>()
                .join(",")
        );
        let read: Entries<i32> = serde_json::from_str(&text).expect("test value");
        let read_map: BTreeMap<String, i32> = serde_json::from_str(&text).expect("test value");
        assert_eq!(read.into_iter().collect::<Vec<_>>(), read_map.into_iter().collect::<Vec<_>>());
        assert!(serde_json::from_str::<Entries<i32>>("[1]").is_err());
    }
}
