//! Objects' ids by name while a scene is built: the one table of a build that grows with the
//! number of objects (a meadow names a million placements).
//!
//! Owns: which id a name gets. Must not touch: the objects themselves.

use passerby_world::Name;
use std::cell::RefCell;
use std::fmt::Write;
use std::hash::BuildHasher;

/// Objects' ids by name, given in order of first use from 1 (never by the hashing): each id's
/// name, and a table of the ids hashed by their names' text (4 bytes a slot; with the names as
/// keys it was 24, and a meadow names a million placements).
#[derive(Default)]
pub(super) struct ObjectIds {
    /// Id `k`'s name at `k - 1`.
    names: Vec<Name>,
    by_name: hashbrown::HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
    /// Where a numbered name's text is written to be hashed.
    text: RefCell<String>,
}

impl ObjectIds {
    /// A table with room for `names` names (more may come).
    pub(super) fn with_capacity(names: usize) -> ObjectIds {
        let mut ids = ObjectIds::default();
        ids.names.reserve(names);
        let ObjectIds {
            names: kept,
            by_name,
            hasher,
            text,
        } = &mut ids;
        by_name.reserve(names, |&id| hash_text(hasher, &kept[id as usize - 1], text));
        ids
    }

    /// The id of the name `text`, and the name kept for it: the one `make` gives if it is new.
    pub(super) fn get_or_insert(&mut self, text: &str, make: impl FnOnce() -> Name) -> (Name, u32) {
        let ObjectIds {
            names,
            by_name,
            hasher,
            text: scratch,
        } = self;
        let hash = hasher.hash_one(text);
        let name_of = |id: u32| &names[id as usize - 1];
        let entry = by_name.entry(
            hash,
            |&id| name_of(id).is(text),
            |&id| hash_text(hasher, name_of(id), scratch),
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

    /// [`ObjectIds::get_or_insert`] for a name as the world keeps it (kept as it is if new).
    pub(super) fn get_or_insert_name(&mut self, name: &Name) -> (Name, u32) {
        // The scratch text is taken out: a lookup that grows the table rehashes with it.
        let mut scratch = self.text.take();
        let found = self.get_or_insert(text_of(name, &mut scratch), || name.clone());
        self.text.replace(scratch);
        found
    }
}

/// `name`'s text: a whole name's own, a numbered one's written out in `scratch`.
fn text_of<'a>(name: &'a Name, scratch: &'a mut String) -> &'a str {
    match name {
        Name::Whole(text) => text,
        numbered => {
            scratch.clear();
            let _ = write!(scratch, "{numbered}");
            scratch
        }
    }
}

/// The hash of `name`'s text, as [`ObjectIds::get_or_insert`] hashes a text.
fn hash_text(
    hasher: &hashbrown::DefaultHashBuilder,
    name: &Name,
    scratch: &RefCell<String>,
) -> u64 {
    hasher.hash_one(text_of(name, &mut scratch.borrow_mut()))
}

#[cfg(test)]
mod tests {
    use super::ObjectIds;
    use passerby_world::Name;
    use std::sync::Arc;

    /// Ids follow first use from 1, a known name keeps its id and its first string, numbered
    /// names are found by their text either way, and ten thousand names (the table grown many
    /// times, numbered ones rehashed by their text) are all found again.
    #[test]
    fn object_ids_follow_first_use_and_keep_the_first_string() {
        let mut ids = ObjectIds::default();
        let first: Arc<str> = "tuft_1".into();
        assert_eq!(ids.get_or_insert("tuft_1", || first.clone().into()).1, 1);
        assert_eq!(ids.get_or_insert("ground", || "ground".into()).1, 2);
        let (kept, id) = ids.get_or_insert("tuft_1", || "tuft_1".into());
        assert_eq!(id, 1);
        assert!(matches!(kept, Name::Whole(k) if Arc::ptr_eq(&k, &first)));
        let stem: Arc<str> = "tuft".into();
        assert_eq!(ids.get_or_insert_name(&Name::numbered(&stem, 1)).1, 1);
        for k in 0..10_000u32 {
            let name = Name::numbered(&stem, k + 2);
            assert_eq!(ids.get_or_insert_name(&name).1, k + 3);
        }
        assert_eq!(ids.get_or_insert("tuft_77", || unreachable!()).1, 78);
        for k in (0..10_000u32).rev() {
            let text = format!("tuft_{}", k + 2);
            let (kept, id) = ids.get_or_insert(&text, || unreachable!("{text} is known"));
            assert_eq!((kept.to_string(), id), (text, k + 3));
            assert!(matches!(kept, Name::Numbered(..)));
        }
    }
}
