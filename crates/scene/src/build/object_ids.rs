//! Objects' ids by name while a scene is built: the one table of a build that grows with the
//! number of objects (a meadow names a million placements).
//!
//! Owns: which id a name gets. Must not touch: the objects themselves.

use std::sync::Arc;

/// Objects' ids by name, given in order of first use from 1 (never by the hashing): each id's
/// name, and a table of the ids hashed by their names (4 bytes a slot; with the names as keys
/// it was 24, and a meadow names a million placements).
#[derive(Default)]
pub(super) struct ObjectIds {
    /// Id `k`'s name at `k - 1`.
    names: Vec<Arc<str>>,
    by_name: hashbrown::HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl ObjectIds {
    /// The id of `name`, and the string kept for it: the one `make` gives if it is new.
    pub(super) fn get_or_insert(
        &mut self,
        name: &str,
        make: impl FnOnce() -> Arc<str>,
    ) -> (Arc<str>, u32) {
        use std::hash::BuildHasher;
        let ObjectIds {
            names,
            by_name,
            hasher,
        } = self;
        let hash = hasher.hash_one(name);
        let name_of = |id: u32| &*names[id as usize - 1];
        let entry = by_name.entry(
            hash,
            |&id| name_of(id) == name,
            |&id| hasher.hash_one(name_of(id)),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(known) => {
                let id = *known.get();
                (names[id as usize - 1].clone(), id)
            }
            hashbrown::hash_table::Entry::Vacant(slot) => {
                let kept = make();
                let id = names.len() as u32 + 1;
                slot.insert(id);
                names.push(kept.clone());
                (kept, id)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ObjectIds;
    use std::sync::Arc;

    /// Ids follow first use from 1, a known name keeps its id and its first string, and ten
    /// thousand names (the table grown many times) are all found again.
    #[test]
    fn object_ids_follow_first_use_and_keep_the_first_string() {
        let mut ids = ObjectIds::default();
        let first: Arc<str> = "tuft_1".into();
        assert_eq!(ids.get_or_insert("tuft_1", || first.clone()).1, 1);
        assert_eq!(ids.get_or_insert("ground", || "ground".into()).1, 2);
        let (kept, id) = ids.get_or_insert("tuft_1", || "tuft_1".into());
        assert_eq!(id, 1);
        assert!(Arc::ptr_eq(&kept, &first));
        for k in 0..10_000u32 {
            let name = format!("name_{k}");
            assert_eq!(ids.get_or_insert(&name, || name.as_str().into()).1, k + 3);
        }
        for k in (0..10_000u32).rev() {
            let name = format!("name_{k}");
            let (kept, id) = ids.get_or_insert(&name, || unreachable!("{name} is known"));
            assert_eq!((&*kept, id), (name.as_str(), k + 3));
        }
    }
}
