//! The label tables a run's outputs carry: every object's instance id, name and class, every
//! class's id (the `passerby.labels` metadata and `labels.json`), and each actor's id and class
//! (for its ground truth).

use passerby_scene::BuiltScene;
use passerby_world::World;
use std::collections::BTreeMap;

/// The instance and class tables as JSON strings (keys `instances` and `classes`).
pub fn label_tables(built: &BuiltScene) -> BTreeMap<String, String> {
    let mut seen = std::collections::BTreeSet::new();
    let instances: Vec<serde_json::Value> = built
        .all_objects()
        .filter(|o| seen.insert(o.id))
        .map(|o| {
            let class = built.class_name(o);
            serde_json::json!({"id": o.id, "name": o.name, "class": class, "class_id": o.class_id})
        })
        .collect();
    let classes: Vec<serde_json::Value> = (built.classes.iter().enumerate().skip(1))
        .map(|(i, c)| serde_json::json!({"id": i, "name": c}))
        .collect();
    BTreeMap::from([
        (
            "instances".to_owned(),
            serde_json::Value::from(instances).to_string(),
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
