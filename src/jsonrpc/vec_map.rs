//! Maps and sets kept as a vector. The tables of a connection (requests in flight, calls
//! being served, sessions replaying) hold a handful of entries: a linear scan is as fast
//! as hashing them, and compiles to a fraction of the code of a hash or B-tree map, once
//! per key and value type. Iteration follows insertion, except after a removal.

use std::borrow::Borrow;

#[derive(Clone, Debug, PartialEq)]
pub struct VecMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap(Vec::new())
    }
}

impl<K: PartialEq, V> VecMap<K, V> {
    pub fn new() -> Self {
        Self::default()
    }

    fn index<Q: PartialEq + ?Sized>(&self, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
    {
        self.0.iter().position(|(k, _)| k.borrow() == key)
    }

    pub fn get<Q: PartialEq + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.index(key).map(|i| &self.0[i].1)
    }

    pub fn get_mut<Q: PartialEq + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.index(key).map(|i| &mut self.0[i].1)
    }

    pub fn contains_key<Q: PartialEq + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.index(key).is_some()
    }

    /// Sets the value of `key`; returns the one it replaces.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.index(&key) {
            Some(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            None => {
                self.0.push((key, value));
                None
            }
        }
    }

    pub fn remove<Q: PartialEq + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.index(key).map(|i| self.0.swap_remove(i).1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> {
        self.0.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&K, &V) -> bool) {
        self.0.retain(|(k, v)| keep(k, v));
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.0.iter().map(|(k, _)| k)
    }

    /// The value of `key`, made by `make` if absent and then placed in key order: a map
    /// filled only this way iterates sorted, as a B-tree map would, without its code.
    pub fn get_or_insert_sorted(&mut self, key: K, make: impl FnOnce(&K) -> V) -> &mut V
    where
        K: Ord,
    {
        let i = match self.0.iter().position(|(k, _)| *k >= key) {
            Some(i) if self.0[i].0 == key => i,
            Some(i) => {
                let value = make(&key);
                self.0.insert(i, (key, value));
                i
            }
            None => {
                let value = make(&key);
                self.0.push((key, value));
                self.0.len() - 1
            }
        };
        &mut self.0[i].1
    }
}

/// Written as a JSON object, in the map's order.
impl<K: serde::Serialize, V: serde::Serialize> serde::Serialize for VecMap<K, V> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// A set kept as a vector (see [`VecMap`]).
#[derive(Clone, Debug)]
pub struct VecSet<K>(VecMap<K, ()>);

impl<K> Default for VecSet<K> {
    fn default() -> Self {
        VecSet(VecMap::default())
    }
}

impl<K: PartialEq> VecSet<K> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `key`; false if it was there already.
    pub fn insert(&mut self, key: K) -> bool {
        self.0.insert(key, ()).is_none()
    }

    pub fn contains<Q: PartialEq + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.0.contains_key(key)
    }

    /// Removes `key`; false if it was not there.
    pub fn remove<Q: PartialEq + ?Sized>(&mut self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.0.remove(key).is_some()
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }
}

/// Sorts `v` by `less`, unstably: a heapsort, for the connection's small tables (the requests
/// in flight ordered by age, the calls being served by id). core's `sort_unstable` is faster on
/// large slices but compiles to about 3 KB of code per element type (quicksort, its partitions,
/// small-sort networks and a heapsort fallback); this is a tenth of that, in O(n log n) still.
pub(crate) fn sort_by<T>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    // Moves `v[i]` down the max-heap of `v[..end]`.
    let sift = |v: &mut [T], mut i: usize, end: usize| loop {
        let mut child = 2 * i + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && less(&v[child], &v[child + 1]) {
            child += 1;
        }
        if !less(&v[i], &v[child]) {
            return;
        }
        v.swap(i, child);
        i = child;
    };
    let n = v.len();
    for i in (0..n / 2).rev() {
        sift(v, i, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift(v, 0, end);
    }
}

#[cfg(test)]
mod sort_tests {
    use super::sort_by;

    #[test]
    fn sorts_as_core_sorts() {
        // A small generator: every length to 40, with runs, repeats and reversed stretches.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for len in 0..40 {
            for modulus in [2, 7, 1000] {
                let mut v: Vec<u64> = (0..len).map(|_| next() % modulus).collect();
                if len % 3 == 0 {
                    v.reverse();
                }
                let mut want = v.clone();
                want.sort_unstable();
                sort_by(&mut v, |a, b| a < b);
                assert_eq!(v, want);
            }
        }
    }
}
