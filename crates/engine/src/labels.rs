//! The label tables a run's outputs carry: every object's instance id, name and class, every
//! class's id (the `passerby.labels` metadata and `labels.json`), and each actor's id and class
//! (for its ground truth).

use passerby_scene::BuiltScene;
use passerby_world::World;
use std::collections::BTreeMap;

/// The instance and class tables as JSON strings (keys `instances` and `classes`).
pub fn label_tables(built: &BuiltScene) -> BTreeMap<String, String> {
    /// A row of the instance table, its fields in the order of their names (as a JSON object
    /// map writes them), serialized without a tree of values in between: a meadow's table
    /// has a million rows.
    #[derive(serde::Serialize)]
    struct InstanceRow<'a> {
        class: &'a str,
        class_id: u16,
        id: u32,
        name: &'a passerby_scene::Name,
    }
    // Ids are dense from 1: whether each was listed already.
    let mut seen = vec![false; built.objects.len() + 1];
    let mut instances = Vec::new();
    for o in built.all_objects() {
        let id = o.id as usize;
        if id >= seen.len() {
            seen.resize(id + 1, false);
        }
        if !std::mem::replace(&mut seen[id], true) {
            instances.push(InstanceRow {
                class: built.class_name(o),
                class_id: o.class_id,
                id: o.id,
                name: &o.name,
            });
        }
    }
    let classes: Vec<serde_json::Value> = (built.classes.iter().enumerate().skip(1))
        .map(|(i, c)| serde_json::json!({"id": i, "name": c}))
        .collect();
    BTreeMap::from([
        (
            "instances".to_owned(),
            // (Strings and integers: serializing them cannot fail.)
            serde_json::to_string(&instances).unwrap_or_default(),
        ),
        (
            "classes".to_owned(),
            serde_json::Value::from(classes).to_string(),
        ),
    ])
}

/// Per actor of `world` (in order), its instance id and class in `built` (`0, pedestrian`
/// for an actor the scene lacks).
pub fn actor_labels(world: &World, built: &BuiltScene) -> Vec<(u32, String)> {
    (world.actors.iter())
        .map(|a| {
            (built.all_objects())
                .find(|o| o.name.is(&a.name))
                .map_or((0, "pedestrian".to_owned()), |o| {
                    (o.id, built.class_name(o).to_owned())
                })
        })
        .collect()
}
