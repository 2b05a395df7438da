//! Timed input files (`--transforms`, `--commands`, `--trajectory`) read and checked against the world and its
//! scene: every object a row names must exist (and be movable), every vehicle a command names
//! must be one, every part must be one of its object's (named, or `#K`, replaced by its name).
//! Each error is a diagnostic at its place in the file.

use passerby_diag::Diagnostic;
use passerby_scene::BuiltScene;
use passerby_timed::Parsed;
use passerby_world::{TimedCommand, TimedTransform, World};
use std::path::Path;

/// Reads a commands file and checks its vehicles against `world`.
pub fn read_commands(path: &Path, world: &World) -> Parsed<TimedCommand> {
    let mut p = passerby_timed::read_commands(path);
    let rows = p.value.iter().flat_map(|v| v.rows.iter().zip(&v.places));
    for (row, place) in rows {
        if !world.vehicles.iter().any(|v| v.name == row.vehicle) {
            let message = format!("no vehicle `{}` in the world", row.vehicle);
            p.diagnostics.push(Diagnostic::error(place.object, message));
        }
    }
    p
}

/// Reads a transforms file and checks its objects and parts against `world` and `built`,
/// naming parts given as `#K`.
pub fn read_transforms(path: &Path, world: &World, built: &BuiltScene) -> Parsed<TimedTransform> {
    let mut p = passerby_timed::read_transforms(path);
    check_targets(&mut p, world, built);
    p
}

/// Reads a TUM trajectory file as the poses of `object`'s body and checks the object.
pub fn read_trajectory(
    path: &Path,
    object: &str,
    world: &World,
    built: &BuiltScene,
) -> Parsed<TimedTransform> {
    let mut p = passerby_timed::read_tum(path, object);
    check_targets(&mut p, world, built);
    p
}

/// Checks that every row's object exists and can move and that its part is one of the
/// object's (naming parts given as `#K`); each error at the row's place.
fn check_targets(p: &mut Parsed<TimedTransform>, world: &World, built: &BuiltScene) {
    let rows = (p.value.iter_mut()).flat_map(|v| v.rows.iter_mut().zip(&v.places));
    for (row, place) in rows {
        let block = world.blocks.iter().find(|b| b.name == row.object);
        let known = block.is_some()
            || world.vehicles.iter().any(|v| v.name == row.object)
            || world.actors.iter().any(|a| a.name == row.object);
        let error = if !known {
            let message = format!("no actor, vehicle or block `{}` in the world", row.object);
            Some((place.object, message))
        } else if block.is_some_and(|b| b.is_fixed()) {
            let message = format!("block `{}` is static: it cannot be moved", row.object);
            Some((place.object, message))
        } else if let Some(part) = &mut row.part {
            match built.resolve_part(&row.object, part) {
                Ok(name) => {
                    *part = name;
                    None
                }
                Err(why) => Some((place.part, why)),
            }
        } else {
            None
        };
        if let Some((span, message)) = error {
            p.diagnostics.push(Diagnostic::error(span, message));
        }
    }
}
