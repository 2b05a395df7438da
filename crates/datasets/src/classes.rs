//! Our classes onto SemanticKITTI's (`semantic-kitti.yaml`'s `labels`), by the words of their
//! names: `pedestrian` is a person, `tree_oak` vegetation, `parked car` a car. Built-in classes
//! and MAVS's label names need no configuration; a JSON map (`{"our name": id}`) overrides.
//! Classes nothing matches become `other-object` (99); "no return / nothing" stays 0.

use std::collections::BTreeMap;

/// SemanticKITTI's classes used here, `(id, name)`.
pub const SEMANTIC_KITTI: [(u16, &str); 26] = [
    (0, "unlabeled"),
    (1, "outlier"),
    (10, "car"),
    (11, "bicycle"),
    (13, "bus"),
    (15, "motorcycle"),
    (16, "on-rails"),
    (18, "truck"),
    (20, "other-vehicle"),
    (30, "person"),
    (31, "bicyclist"),
    (32, "motorcyclist"),
    (40, "road"),
    (44, "parking"),
    (48, "sidewalk"),
    (49, "other-ground"),
    (50, "building"),
    (51, "fence"),
    (52, "other-structure"),
    (60, "lane-marking"),
    (70, "vegetation"),
    (71, "trunk"),
    (72, "terrain"),
    (80, "pole"),
    (81, "traffic-sign"),
    (99, "other-object"),
];

/// Words of our class names and the SemanticKITTI class they mean, the first match winning
/// (so `bicyclist` is tested before `bicycle`, `trunk` before `tree`).
const WORDS: [(&[&str], u16); 20] = [
    (&["bicyclist", "cyclist"], 31),
    (&["motorcyclist"], 32),
    (
        &[
            "person",
            "pedestrian",
            "people",
            "human",
            "walker",
            "actor",
            "man",
            "woman",
            "child",
        ],
        30,
    ),
    (&["bicycle", "bike"], 11),
    (&["motorcycle", "motorbike", "scooter"], 15),
    (&["bus"], 13),
    (&["truck", "lorry", "trailer"], 18),
    (
        &["car", "sedan", "suv", "van", "taxi", "jeep", "pickup"],
        10,
    ),
    (&["train", "tram", "rail", "rails"], 16),
    (&["vehicle", "robot", "tractor", "cart", "forklift"], 20),
    (&["road", "street", "asphalt", "highway", "lane"], 40),
    (&["parking"], 44),
    (&["sidewalk", "pavement", "footpath", "curb", "kerb"], 48),
    (&["fence", "railing", "barrier", "guardrail"], 51),
    (
        &["wall", "building", "house", "roof", "shed", "warehouse"],
        50,
    ),
    (&["trunk", "log", "stump"], 71),
    (
        &[
            "tree",
            "bush",
            "shrub",
            "vegetation",
            "plant",
            "hedge",
            "foliage",
            "leaves",
            "leaf",
            "crop",
            "crops",
            "canopy",
            "forest",
        ],
        70,
    ),
    (
        &[
            "terrain", "grass", "dirt", "soil", "sand", "gravel", "mud", "lawn", "field", "meadow",
        ],
        72,
    ),
    (&["pole", "post", "lamp", "streetlight"], 80),
    (&["sign", "signpost"], 81),
];

/// Ground words with no better match: SemanticKITTI's `other-ground`.
const GROUND: [&str; 3] = ["ground", "floor", "plane"];

/// The SemanticKITTI id of our class `name`.
pub fn semantic_kitti_id(name: &str) -> u16 {
    let words: Vec<String> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let has = |w: &&str| {
        words
            .iter()
            .any(|word| word == w || *word == format!("{w}s"))
    };
    for (list, id) in WORDS {
        if list.iter().any(&has) {
            return id;
        }
    }
    if GROUND.iter().any(has) {
        return 49;
    }
    99
}

/// Whether SemanticKITTI counts the class as things with instances (vehicles, people).
pub fn is_thing(id: u16) -> bool {
    (10..=32).contains(&id)
}

/// SemanticKITTI's name of `id`.
pub fn semantic_kitti_name(id: u16) -> &'static str {
    (SEMANTIC_KITTI.iter())
        .find(|(i, _)| *i == id)
        .map_or("unknown", |(_, n)| n)
}

/// Our class ids (from the recording's `classes` table) onto SemanticKITTI's: each by its
/// name, unless `overrides` names it. Our id 0 (nothing) is `unlabeled`.
pub fn class_map(
    classes: &BTreeMap<u16, String>,
    overrides: &BTreeMap<String, u16>,
) -> BTreeMap<u16, u16> {
    let mut map = BTreeMap::from([(0, 0)]);
    for (&id, name) in classes {
        let target = overrides
            .get(name)
            .copied()
            .unwrap_or_else(|| semantic_kitti_id(name));
        map.insert(id, target);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_by_their_words() {
        for (name, id) in [
            ("pedestrian", 30),
            ("ground", 49),
            ("wall", 50),
            ("static", 99),
            ("vehicle", 20),
            ("obstacle", 99),
            ("Parked_Cars", 10),
            ("tree_trunk", 71),
            ("oak tree", 70),
            ("tall grass", 72),
            ("bicyclist", 31),
            ("traffic sign", 81),
            ("dirt road", 40),
        ] {
            assert_eq!(semantic_kitti_id(name), id, "{name}");
        }
        let classes = BTreeMap::from([(1, "ground".to_owned()), (2, "crate".to_owned())]);
        let overrides = BTreeMap::from([("crate".to_owned(), 52)]);
        assert_eq!(
            class_map(&classes, &overrides),
            BTreeMap::from([(0, 0), (1, 49), (2, 52)])
        );
    }
}
