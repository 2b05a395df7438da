//! `<vehicle>` and `<vehicle:class>`: dynamics, wheels, chassis, controller, friction,
//! odometry and mounted sensors (MVSim `VehicleBase.cpp`, `VehicleDynamics/*`, mvsim.md §1.10).

use crate::loader::{ClassKind, Loader};
use crate::params::Params;
use crate::values;
use crate::xml::Element;
use passerby_world::*;
use std::collections::BTreeMap;

/// Parameters MVSim reads from a `<chassis>` element's attributes only.
const CHASSIS_ATTRIBUTES: &[&str] = &[
    "mass",
    "zmin",
    "zmax",
    "color",
    "linear_damping",
    "angular_damping",
];

/// Parameters MVSim reads from a wheel element's attributes only.
const WHEEL_ATTRIBUTES: &[&str] = &[
    "pos",
    "mass",
    "width",
    "diameter",
    "color",
    "inertia",
    "linked_yaw",
    "linked_yaw_offset_deg",
];

impl Loader<'_> {
    /// `<vehicle>` (instance), with its class and sensors.
    pub fn vehicle(&mut self, el: &Element) {
        let class = self.class_of(el, ClassKind::Vehicle);
        if el.attr("class").is_some() && class.is_none() {
            return;
        }
        let body = self.expand_body(el);
        let mut bodies = vec![&body];
        if let Some((_, c)) = &class {
            bodies.push(c);
        }
        let mut p = Params::new(bodies);
        let count = self.world.vehicles.len() + 1;
        let name = self.body_name(el, |n| format!("veh{n}"), count);
        let mut common = self.simulable(&mut p, el, "vehicle", &name);
        let dynamics = match p.find("dynamics") {
            Some(d) => self.dynamics(d),
            None => {
                self.diags.error(el.span, format!("vehicle `{name}` has no `<dynamics class=\"…\">` (in the instance or its class)"));
                Dynamics::default()
            }
        };
        self.adjust_elevation(&mut common, 0.5 * dynamics.chassis.zmax);
        let friction = match p.find("friction") {
            Some(f) => self.friction(f),
            None => Friction::default(),
        };
        let odometry_multipliers = match p.find("odometry") {
            Some(o) => ["x_multiplier", "y_multiplier", "yaw_multiplier"]
                .map(|name| self.attr_opt_f64(o, name)),
            None => [None; 3],
        };
        let mut visuals = Vec::new();
        for v in p.find_first_body("visual") {
            let visual = self.visual(v);
            visuals.push(visual);
        }
        let log_path = self.p_string(&mut p, "log_path", "");
        let auto_start_recording = self.p_bool(&mut p, "auto_start_recording", false);
        let mut sensors: Vec<Sensor> = Vec::new();
        for s in p.find_all("sensor") {
            let taken: Vec<String> = sensors.iter().map(|s| s.name.clone()).collect();
            if let Some(sensor) = self.sensor(s, &name, &taken) {
                sensors.push(sensor);
            }
        }
        self.finish_params(p, "a <vehicle>");
        self.world.vehicles.push(Vehicle {
            name,
            class: class.map(|(n, _)| n),
            common,
            dynamics,
            friction,
            odometry_multipliers,
            visuals,
            sensors,
            log_path,
            auto_start_recording,
        });
    }

    fn dynamics(&mut self, el: &Element) -> Dynamics {
        let mut dynamics = Dynamics::default();
        let class_text = self.required_attr(el, "class");
        let class = match class_text.as_ref().map(|(t, s)| (t.trim(), *s)) {
            Some(("differential", _)) => DynamicsClass::Differential,
            Some(("differential_3_wheels", _)) => DynamicsClass::Differential3Wheels,
            Some(("differential_4_wheels", _)) => DynamicsClass::Differential4Wheels,
            Some(("ackermann", _)) => DynamicsClass::Ackermann,
            Some(("ackermann_drivetrain", _)) => DynamicsClass::AckermannDrivetrain,
            Some((other, span)) => {
                self.diags.error(span, format!("dynamics class `{other}`: expected differential, differential_3_wheels, differential_4_wheels, ackermann or ackermann_drivetrain"));
                return dynamics;
            }
            None => return dynamics,
        };
        dynamics.class = class;
        let mut p = Params::new(vec![el]);
        let ackermann = matches!(
            class,
            DynamicsClass::Ackermann | DynamicsClass::AckermannDrivetrain
        );
        if ackermann {
            dynamics.f_wheels_x = Some(self.p_f64(&mut p, "f_wheels_x", 1.3));
            dynamics.f_wheels_d = Some(self.p_positive(&mut p, "f_wheels_d", 2.0));
            dynamics.max_steer_ang =
                Some(self.p_deg(&mut p, "max_steer_ang_deg", 30f64.to_radians()));
        }
        let fx = dynamics.f_wheels_x.unwrap_or(0.0);
        let half_d = dynamics.f_wheels_d.unwrap_or(0.0) / 2.0;
        let roles: &[(&str, [f64; 2])] = match class {
            DynamicsClass::Differential => &[("l_wheel", [0.0, 0.5]), ("r_wheel", [0.0, -0.5])],
            DynamicsClass::Differential3Wheels => &[
                ("l_wheel", [0.0, 0.5]),
                ("r_wheel", [0.0, -0.5]),
                ("caster_wheel", [0.5, 0.0]),
            ],
            // MVSim's `DynamicsDifferential_4_wheels`: the rear axle at x = 0.
            DynamicsClass::Differential4Wheels => &[
                ("lr_wheel", [0.0, 0.5]),
                ("rr_wheel", [0.0, -0.5]),
                ("lf_wheel", [0.5, 0.5]),
                ("rf_wheel", [0.5, -0.5]),
            ],
            DynamicsClass::Ackermann | DynamicsClass::AckermannDrivetrain => &[
                ("rl_wheel", [0.0, 0.9]),
                ("rr_wheel", [0.0, -0.9]),
                ("fl_wheel", [fx, half_d]),
                ("fr_wheel", [fx, -half_d]),
            ],
        };
        for (role, default_pos) in roles {
            let wheel_el = p.find(role);
            let mut wheel = self.wheel(role, wheel_el, *default_pos);
            if ackermann && role.starts_with('f') {
                // MVSim places the front wheels by f_wheels_x / f_wheels_d after reading
                // them, whatever their `pos` says (its yaw stays).
                (wheel.pose.x, wheel.pose.y) = (default_pos[0], default_pos[1]);
            }
            dynamics.wheels.push(wheel);
        }
        if let Some(ch) = p.find("chassis") {
            dynamics.chassis = self.chassis(ch);
        }
        match p.find("controller") {
            Some(c) => dynamics.controller = self.controller(c, class),
            None => self
                .diags
                .error(el.span, "`<dynamics>` has no `<controller class=\"…\">`"),
        }
        if class == DynamicsClass::AckermannDrivetrain {
            if let Some(d) = p.find("drivetrain") {
                let kind = self
                    .required_attr(d, "type")
                    .map(|(t, _)| t.trim().to_owned())
                    .unwrap_or_default();
                let params = self.numeric_children(d, "a <drivetrain>");
                dynamics.drivetrain = Some(Drivetrain { kind, params });
            } else {
                self.diags.error(
                    el.span,
                    "`ackermann_drivetrain` needs a `<drivetrain type=\"…\">`",
                );
            }
        } else {
            // Shipped definitions carry a <drivetrain> also for plain ackermann; MVSim ignores it.
            p.accept(&["drivetrain"]);
        }
        self.finish_params(p, "a <dynamics>");
        dynamics
    }

    fn wheel(&mut self, role: &str, el: Option<&Element>, default_pos: [f64; 2]) -> Wheel {
        let mut wheel = Wheel {
            role: role.to_owned(),
            pose: Pose2 {
                x: default_pos[0],
                y: default_pos[1],
                yaw: 0.0,
            },
            mass: 2.0,
            width: 0.2,
            diameter: 0.4,
            color: Color::rgb(0x32, 0x32, 0x32),
            ..Wheel::default()
        };
        let Some(el) = el else { return wheel };
        if let Some((text, span)) = self.optional_attr(el, "pos")
            && let Some(v) = self.numbers_at(
                &text,
                span,
                2,
                3,
                "attribute `pos`: expected `x y [yaw_deg]`",
            )
        {
            // A third value is the wheel's yaw in MVSim's 2D wheels; shipped files also use it
            // as z (agricobiot2), which MVSim reads as yaw degrees too.
            wheel.pose = Pose2 {
                x: v[0],
                y: v[1],
                yaw: v.get(2).copied().unwrap_or(0.0).to_radians(),
            };
        }
        wheel.mass = self.attr_positive(el, "mass", wheel.mass);
        wheel.width = self.attr_positive(el, "width", wheel.width);
        wheel.diameter = self.attr_positive(el, "diameter", wheel.diameter);
        if let Some((t, span)) = self.optional_attr(el, "color") {
            match values::color(&t) {
                Ok(c) => wheel.color = c,
                Err(e) => self.diags.error(span, format!("attribute `color`: {e}")),
            }
        }
        wheel.inertia = self.attr_opt_f64(el, "inertia");
        wheel.linked_yaw = self
            .optional_attr(el, "linked_yaw")
            .map(|(t, _)| t.trim().to_owned())
            .unwrap_or_default();
        wheel.linked_yaw_offset = self.attr_f64(el, "linked_yaw_offset_deg", 0.0).to_radians();
        for child in el.elements() {
            if child.name == "visual" {
                let v = self.visual(child);
                wheel.visuals.push(v);
            } else if WHEEL_ATTRIBUTES.contains(&child.name.as_str()) {
                self.attribute_as_tag(child, "a wheel");
            } else {
                self.unknown_tag(child, "a wheel", &["visual"]);
            }
        }
        wheel
    }

    /// Warns about a parameter written as a child tag where MVSim reads only attributes (so
    /// MVSim ignores it too; `scania_truck.vehicle.xml` writes `<linear_damping>` so).
    fn attribute_as_tag(&mut self, el: &Element, context: &str) {
        let name = &el.name;
        self.diags.warning_once_per_file(
            &format!("tag:{name}"),
            el.span,
            format!(
                "`<{name}>` in {context} is ignored, by MVSim too: it reads this parameter \
                 only as an attribute (write `{name}=\"…\"`)"
            ),
        );
    }

    fn chassis(&mut self, el: &Element) -> Chassis {
        let d = Chassis::default();
        let mut chassis = Chassis {
            mass: self.attr_positive(el, "mass", d.mass),
            zmin: self.attr_f64(el, "zmin", d.zmin),
            zmax: self.attr_f64(el, "zmax", d.zmax),
            color: d.color,
            linear_damping: self.attr_f64(el, "linear_damping", d.linear_damping),
            angular_damping: self.attr_f64(el, "angular_damping", d.angular_damping),
            shape: None,
            shape_from_visual: false,
        };
        if let Some((t, span)) = self.optional_attr(el, "color") {
            match values::color(&t) {
                Ok(c) => chassis.color = c,
                Err(e) => self.diags.error(span, format!("attribute `color`: {e}")),
            }
        }
        for child in el.elements() {
            match child.name.as_str() {
                "shape" => chassis.shape = self.polygon(child),
                "shape_from_visual" => chassis.shape_from_visual = true,
                name if CHASSIS_ATTRIBUTES.contains(&name) => {
                    self.attribute_as_tag(child, "a <chassis>")
                }
                _ => self.unknown_tag(child, "a <chassis>", &["shape", "shape_from_visual"]),
            }
        }
        chassis
    }

    fn controller(&mut self, el: &Element, class: DynamicsClass) -> Controller {
        let allowed: &[&str] = match class {
            DynamicsClass::Differential
            | DynamicsClass::Differential3Wheels
            | DynamicsClass::Differential4Wheels => &["raw", "twist_pid", "twist_ideal"],
            DynamicsClass::Ackermann => &[
                "raw",
                "front_steer_pid",
                "twist_front_steer_pid",
                "twist_ideal",
            ],
            DynamicsClass::AckermannDrivetrain => &[
                "raw",
                "front_steer_pid",
                "twist_front_steer_pid",
                "twist_ideal",
            ],
        };
        let mut controller = Controller::default();
        if let Some((text, span)) = self.required_attr(el, "class") {
            let name = text.trim();
            if allowed.contains(&name) {
                controller.class = name.to_owned();
            } else {
                self.diags.error(
                    span,
                    format!("controller class `{name}` does not exist for `{}` dynamics: expected one of {}", class.xml_name(), allowed.join(", ")),
                );
            }
        }
        controller.params = self.numeric_children(el, "a <controller>");
        // MVSim reads W and STEER_ANG in degrees.
        for key in ["W", "STEER_ANG", "steer_ang_deg"] {
            if let Some(v) = controller.params.get_mut(key) {
                *v = v.to_radians();
            }
        }
        controller
    }

    /// Every child of `el` as a number (controller gains, friction coefficients, …).
    fn numeric_children(&mut self, el: &Element, context: &str) -> BTreeMap<String, f64> {
        let mut out = BTreeMap::new();
        for child in el.elements() {
            let (raw, span) = child.text();
            if raw.trim().is_empty() && child.elements().next().is_some() {
                self.unknown_tag(child, context, &[]);
                continue;
            }
            let Some(text) = self.value(&raw, span) else {
                continue;
            };
            let what = format!("<{}>", child.name);
            // MVSim's `%bool` switches (`enable_antiwindup`, …) are kept as 1 or 0.
            let v = if child.name.starts_with("enable_") {
                match values::boolean(&text) {
                    Ok(b) => Some(f64::from(u8::from(b))),
                    Err(e) => {
                        self.diags.error(span, format!("{what}: {e}"));
                        None
                    }
                }
            } else {
                self.scan(&text, span, &what, values::real)
            };
            if let Some(v) = v {
                out.insert(child.name.clone(), v);
            }
        }
        out
    }

    fn friction(&mut self, el: &Element) -> Friction {
        let class = self
            .optional_attr(el, "class")
            .map(|(t, s)| (t.trim().to_owned(), s));
        let class_name = class
            .as_ref()
            .map_or("default", |(t, _)| t.as_str())
            .to_owned();
        let defaults: &[(&str, f64)] = match class_name.as_str() {
            "default" => &[("mu", 0.8), ("C_damping", 0.01), ("C_rr", 0.0)],
            "wardiagnemma" => &[
                ("mu", 0.8),
                ("C_damping", 0.01),
                ("A_roll", 50.0),
                ("R1", 0.0075),
                ("R2", 0.02),
            ],
            "ellipse" => &[
                ("mu", 0.8),
                ("C_damping", 0.01),
                ("C_alpha", 8.5),
                ("C_s", 7.5),
            ],
            other => {
                if let Some((_, span)) = class {
                    self.diags.error(
                        span,
                        format!(
                            "friction class `{other}`: expected default, wardiagnemma or ellipse"
                        ),
                    );
                }
                &[]
            }
        };
        let mut params: BTreeMap<String, f64> = defaults
            .iter()
            .map(|(k, v)| ((*k).to_owned(), *v))
            .collect();
        params.extend(self.numeric_children(el, "a <friction>"));
        Friction {
            class: class_name,
            params,
        }
    }
}
