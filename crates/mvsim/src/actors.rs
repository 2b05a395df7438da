//! `<actor>` and `<actor:class>`: speeds, clips, collision shape, waypoint paths and our
//! `<behavior>` extension (MVSim `HumanActor.cpp`, mvsim.md §1.12).

use crate::loader::{ClassKind, Loader};
use crate::params::Params;
use crate::values;
use crate::xml::Element;
use passerby_world::*;

impl Loader<'_> {
    /// `<actor>` (instance), with its class.
    pub fn actor(&mut self, el: &Element) {
        let class = self.class_of(el, ClassKind::Actor);
        if el.attr("class").is_some() && class.is_none() {
            return;
        }
        let body = self.expand_body(el);
        let mut bodies = vec![&body];
        if let Some((_, c)) = &class {
            bodies.push(c);
        }
        let mut p = Params::new(bodies);
        let count = self.world.actors.len() + 1;
        let name = self.body_name(el, |n| format!("actor{n:03}"), count);
        let d = Actor::default();
        let mut common = self.simulable(&mut p, el, "actor", &name);
        self.adjust_elevation(&mut common, 1.5);
        let walking_speed = self.p_positive(&mut p, "walking_speed", d.walking_speed);
        let running_speed = self.p_positive(&mut p, "running_speed", d.running_speed);
        let turning_rate_deg = self.p_non_negative(&mut p, "turning_rate", 120.0);
        let run_threshold = self.p_opt_f64(&mut p, "run_threshold");
        let mut actor = Actor {
            name: name.clone(),
            class: class.as_ref().map(|(n, _)| n.clone()),
            common,
            walking_speed,
            running_speed,
            turning_rate: (turning_rate_deg > 0.0).then(|| turning_rate_deg.to_radians()),
            run_threshold,
            height: self.p_positive(&mut p, "height", d.height),
            collision_radius: self.p_positive(&mut p, "collision_radius", d.collision_radius),
            collision_height: self.p_positive(&mut p, "collision_height", d.collision_height),
            animation_idle: self.p_string(&mut p, "animation_idle", &d.animation_idle),
            animation_walk: self.p_string(&mut p, "animation_walk", &d.animation_walk),
            animation_run: self.p_string(&mut p, "animation_run", &d.animation_run),
            animation_turn: self
                .p_text(&mut p, "animation_turn")
                .map(|(t, _)| t.trim().to_owned()),
            visuals: Vec::new(),
            path: None,
            behavior: None,
            keyframe_meshes: None,
        };
        // Class and instance visuals are both shown (MVSim HumanActor).
        for v in p.find_all("visual") {
            let visual = self.visual(v);
            actor.visuals.push(visual);
        }
        if let Some(path) = p.find("path") {
            actor.path = self.actor_path(path);
        }
        if let Some(b) = p.find("behavior") {
            actor.behavior = self.behavior(b, walking_speed);
            if actor.path.is_some() && actor.behavior.is_some() {
                self.diags.error(
                    b.span,
                    format!("actor `{name}` has both a `<path>` and a `<behavior>`: choose one"),
                );
            }
        }
        self.finish_params(p, "an <actor>");
        self.world.actors.push(actor);
    }

    fn actor_path(&mut self, el: &Element) -> Option<ActorPath> {
        // MVSim: loop is true unless the attribute is present and not exactly "true" or "1".
        let looped = el
            .attr("loop")
            .is_none_or(|a| matches!(a.value.trim(), "true" | "1"));
        let mut waypoints = Vec::new();
        for wp in el.elements() {
            if wp.name != "waypoint" {
                self.unknown_tag(wp, "a <path>", &["waypoint"]);
                continue;
            }
            let (raw, span) = wp.text();
            let Some(text) = self.value(&raw, span) else {
                continue;
            };
            let Some(v) = self.numbers_at(
                &text,
                span,
                3,
                6,
                "<waypoint>: expected `x y yaw_deg` or `x y z yaw pitch roll`",
            ) else {
                continue;
            };
            let (pose, is_3d) = match v.len() {
                3 => (
                    Pose3 {
                        x: v[0],
                        y: v[1],
                        yaw: v[2].to_radians(),
                        ..Pose3::default()
                    },
                    false,
                ),
                6 => (
                    Pose3 {
                        x: v[0],
                        y: v[1],
                        z: v[2],
                        yaw: v[3].to_radians(),
                        pitch: v[4].to_radians(),
                        roll: v[5].to_radians(),
                    },
                    true,
                ),
                n => {
                    self.diags.error(span, format!("<waypoint> has {n} numbers: expected 3 (`x y yaw_deg`) or 6 (`x y z yaw pitch roll`)"));
                    continue;
                }
            };
            let pause = match self.optional_attr(wp, "pause") {
                Some((t, span)) => match self.scan(&t, span, "attribute `pause`", values::real) {
                    Some(p) if p >= 0.0 => p,
                    Some(p) => {
                        self.diags
                            .error(span, format!("pause {p}: expected zero or more seconds"));
                        0.0
                    }
                    None => 0.0,
                },
                None => 0.0,
            };
            let animation = match self.optional_attr(wp, "animation") {
                None => WaypointAnimation::Walk,
                Some((t, span)) => match t.trim() {
                    "walk" => WaypointAnimation::Walk,
                    "run" => WaypointAnimation::Run,
                    "idle" => WaypointAnimation::Idle,
                    other => {
                        self.diags.error(
                            span,
                            format!("waypoint animation `{other}`: expected walk, run or idle"),
                        );
                        WaypointAnimation::Walk
                    }
                },
            };
            waypoints.push(Waypoint {
                pose,
                is_3d,
                pause,
                animation,
            });
        }
        if waypoints.is_empty() {
            self.diags
                .error(el.span, "`<path>` without any `<waypoint>`");
            return None;
        }
        if looped && waypoints.len() == 1 {
            self.diags.warning(
                el.span,
                "a looping `<path>` with a single `<waypoint>`: the actor walks there and stays \
                 (give two or more waypoints to walk back and forth)",
            );
        }
        Some(ActorPath { looped, waypoints })
    }

    fn behavior(&mut self, el: &Element, walking_speed: f64) -> Option<Behavior> {
        let (kind, span) = self.required_attr(el, "type")?;
        let speed = self.attr_positive(el, "speed", walking_speed);
        let behavior = match kind.trim() {
            "walker" => Behavior::Walker {
                duration: self.attr_positive(el, "duration", 4.0),
                speed,
            },
            "wander" => Behavior::Wander {
                speed,
                radius: self.attr_positive(el, "radius", 10.0),
            },
            "straight" => Behavior::Straight { speed },
            "circle" => Behavior::Circle {
                speed,
                radius: self.attr_positive(el, "radius", 5.0),
            },
            other => {
                self.diags.error(
                    span,
                    format!("behavior type `{other}`: expected walker, wander, straight or circle"),
                );
                return None;
            }
        };
        Some(behavior)
    }
}
