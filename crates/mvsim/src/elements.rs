//! World-level objects: `<element class="…">`, `<walls>`, `<marker>` and `<joint>`
//! (mvsim.md §1.4, §1.6).

use crate::loader::Loader;
use crate::params::Params;
use crate::values;
use crate::xml::Element;
use passerby_world::*;

const ELEMENT_CLASSES: &[&str] = &[
    "ground_grid",
    "occupancy_grid",
    "elevation_map",
    "horizontal_plane",
    "vertical_plane",
    "pointcloud",
    "skybox",
    "property_region",
];

impl Loader<'_> {
    /// A file parameter resolved against its file, which must exist unless it is a URL.
    fn p_file(
        &mut self,
        p: &mut Params<'_>,
        name: &str,
        required: bool,
        owner: &Element,
    ) -> Option<String> {
        let Some((text, span)) = self.p_text(p, name) else {
            if required {
                self.diags
                    .error(owner.span, format!("`<{}>` needs a `<{name}>`", owner.name));
            }
            return None;
        };
        let resolved = self.resolve_uri(&text, span);
        if !resolved.contains("://") && !std::path::Path::new(&resolved).is_file() {
            self.diags.error(
                span,
                format!(
                    "<{name}>: file `{}` not found (looked for `{resolved}`)",
                    text.trim()
                ),
            );
        }
        Some(resolved)
    }

    /// `<element class="…">`.
    pub fn world_element_tag(&mut self, el: &Element) {
        let Some((class, span)) = self.required_attr(el, "class") else {
            return;
        };
        let mut p = Params::new(vec![el]);
        let element = match class.trim() {
            "ground_grid" => WorldElement::GroundGrid(GroundGrid {
                floating_focus: self.p_string(&mut p, "floating_focus", ""),
                floating: self.p_bool(&mut p, "floating", true),
                color: self.p_color(&mut p, "color", Color::rgb(0xe0, 0xe0, 0xe0)),
                line_width: self.p_positive(&mut p, "line_width", 1.0),
                extent: self.extent(&mut p, 25.0),
                interval: self.p_positive(&mut p, "interval", 5.0),
            }),
            "occupancy_grid" => match self.occupancy_grid(&mut p, el) {
                Some(grid) => WorldElement::OccupancyGrid(grid),
                None => return,
            },
            "elevation_map" => match self.elevation_map(&mut p, el) {
                Some(e) => WorldElement::ElevationMap(e),
                None => return,
            },
            "horizontal_plane" => WorldElement::HorizontalPlane(HorizontalPlane {
                extent: self.extent(&mut p, 10.0),
                z: self.p_f64(&mut p, "z", 0.0),
                color: self.p_color(&mut p, "color", Color::rgb(0xa0, 0xa0, 0xa0)),
                enable_shadows: self.p_bool(&mut p, "enable_shadows", true),
                cull_face: self.cull_face(&mut p, "cull_face"),
                texture: self
                    .p_text(&mut p, "texture")
                    .map(|(t, s)| self.resolve_uri(&t, s))
                    .unwrap_or_default(),
                texture_size: [
                    self.p_positive(&mut p, "texture_size_x", 1.0),
                    self.p_positive(&mut p, "texture_size_y", 1.0),
                ],
                init_pose: self
                    .p_text(&mut p, "init_pose")
                    .and_then(|(t, s)| self.pose_text(&t, s, "<init_pose>", false)),
                keyframes: p.find("animation").and_then(|a| self.keyframes(a)),
            }),
            "vertical_plane" => WorldElement::VerticalPlane(self.vertical_plane(&mut p)),
            "pointcloud" => {
                let file2 = self.p_file(&mut p, "file_txt_2d", false, el);
                let file3 = self.p_file(&mut p, "file_txt_3d", false, el);
                let (file, is_3d) = match (file2, file3) {
                    (_, Some(f)) => (f, true),
                    (Some(f), None) => (f, false),
                    (None, None) => {
                        self.diags.error(
                            el.span,
                            "`pointcloud` needs `<file_txt_2d>` or `<file_txt_3d>`",
                        );
                        return;
                    }
                };
                let pose = match self.p_text(&mut p, "pose_3d") {
                    Some((t, s)) => self.pose_text(&t, s, "<pose_3d>", true).unwrap_or_default(),
                    None => Pose3::default(),
                };
                WorldElement::PointCloud(PointCloud {
                    file,
                    is_3d,
                    points_size: self.p_positive(&mut p, "points_size", 3.0),
                    pose,
                })
            }
            "skybox" => {
                let Some((textures, s)) = self.p_text(&mut p, "textures") else {
                    self.diags
                        .error(el.span, "`skybox` needs `<textures>` (a pattern with `%s`)");
                    return;
                };
                if !textures.contains("%s") {
                    self.diags.error(s, "<textures> must contain `%s` (replaced by Up, Right, Left, Front, Down, Back)");
                }
                WorldElement::Skybox(Skybox {
                    textures: self.resolve_uri(&textures, s),
                })
            }
            "property_region" => match self.property_region(&mut p, el) {
                Some(r) => WorldElement::PropertyRegion(r),
                None => return,
            },
            other => {
                let hint = crate::loader::closest(other, ELEMENT_CLASSES)
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                self.diags.error(
                    span,
                    format!(
                        "unknown element class `{other}`: expected one of {}{hint}",
                        ELEMENT_CLASSES.join(", ")
                    ),
                );
                return;
            }
        };
        let label = self
            .p_text(&mut p, "label")
            .map(|(t, _)| t.trim().to_owned())
            .filter(|t| !t.is_empty());
        self.finish_params(p, &format!("a `{}` element", element.class_name()));
        self.world.elements.push(LabeledElement { element, label });
    }

    /// `<element class="occupancy_grid">`: the grid's cells read from its image, ROS map or
    /// `.gridmap` file (MVSim reads `<file>` without any substitution; we substitute as
    /// everywhere).
    fn occupancy_grid(&mut self, p: &mut Params<'_>, el: &Element) -> Option<OccupancyGrid> {
        let file = self.p_file(p, "file", true, el)?;
        let lower = file.to_ascii_lowercase();
        let ros_map = if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            let span = p.find("file").map_or(el.span, |f| f.text().1);
            match read_ros_map(std::path::Path::new(&file)) {
                Ok(m) => Some(m),
                Err(e) => {
                    self.diags.error(span, format!("<file>: {e}"));
                    None
                }
            }
        } else {
            None
        };
        let cx = self.p_f64(p, "centerpixel_x", -1.0);
        let cy = self.p_f64(p, "centerpixel_y", -1.0);
        let resolution = self.p_positive(p, "resolution", 0.10);
        let file_span = p.find("file").map_or(el.span, |f| f.text().1);
        let cells = if lower.ends_with(".gridmap") || lower.ends_with(".gridmap.gz") {
            // A missing file was reported by p_file already.
            match std::fs::read(&file).map(|b| crate::gridmap::read_gridmap(&b)) {
                Ok(Ok(cells)) => Some(cells),
                Ok(Err(e)) => {
                    self.diags.error(file_span, format!("<file>: {e}"));
                    None
                }
                Err(_) => None,
            }
        } else {
            let decoded = match &ros_map {
                Some(m) => occupancy_from_ros_map(m),
                None => occupancy_from_image(&file, resolution, [cx, cy]),
            };
            match decoded {
                Ok(cells) => Some(cells),
                Err(e) => {
                    // A missing file was reported by p_file already.
                    if std::path::Path::new(&file).is_file() || ros_map.is_some() {
                        self.diags.error(file_span, format!("<file>: {e}"));
                    }
                    None
                }
            }
        };
        Some(OccupancyGrid {
            file,
            ros_map,
            resolution,
            center_pixel: [(cx >= 0.0).then_some(cx), (cy >= 0.0).then_some(cy)],
            show_collisions: self.p_bool(p, "show_collisions", true),
            restitution: self.p_non_negative(p, "restitution", 0.01),
            lateral_friction: self.p_non_negative(p, "lateral_friction", 0.5),
            wall_height: self.p_non_negative(p, "wall_height", 0.0),
            cells,
        })
    }

    fn extent(&mut self, p: &mut Params<'_>, half: f64) -> [f64; 4] {
        let e = [
            self.p_f64(p, "x_min", -half),
            self.p_f64(p, "x_max", half),
            self.p_f64(p, "y_min", -half),
            self.p_f64(p, "y_max", half),
        ];
        if (e[0] >= e[1] || e[2] >= e[3])
            && let Some(el) = ["x_min", "x_max", "y_min", "y_max"]
                .iter()
                .find_map(|t| p.find(t))
        {
            self.diags.error(
                el.span,
                format!("empty extent: x {}..{}, y {}..{}", e[0], e[1], e[2], e[3]),
            );
        }
        e
    }

    fn elevation_map(&mut self, p: &mut Params<'_>, el: &Element) -> Option<ElevationMap> {
        let image = self.p_text(p, "elevation_image");
        let matrix = self.p_text(p, "elevation_data_matrix");
        let dem = self.p_file(p, "dem_xyzrgb_file", false, el);
        let resolution = self.p_positive(p, "resolution", 1.0);
        // (rows along +X, cols along +Y, heights) as MVSim's mesh indexes them.
        let (source, samples) = if let Some((text, span)) = image {
            let file = self.resolve_uri(&text, span);
            let min_z = self.p_f64(p, "elevation_image_min_z", 0.0);
            let max_z = self.p_f64(p, "elevation_image_max_z", 5.0);
            let samples = match crate::raster::read_grey_png(std::path::Path::new(&file)) {
                Ok(grey) => {
                    let lo = grey.values.iter().copied().fold(f64::INFINITY, f64::min);
                    let hi = grey
                        .values
                        .iter()
                        .copied()
                        .fold(f64::NEG_INFINITY, f64::max);
                    // The darkest pixel is min_z and the brightest max_z (MVSim rescales).
                    let scale = if hi > lo {
                        (max_z - min_z) / (hi - lo)
                    } else {
                        0.0
                    };
                    let heights = grey
                        .values
                        .iter()
                        .map(|v| min_z + (v - lo) * scale)
                        .collect();
                    Some((grey.rows, grey.cols, heights))
                }
                Err(e) => {
                    self.diags.error(span, format!("<elevation_image>: {e}"));
                    None
                }
            };
            (ElevationSource::Image { file, min_z, max_z }, samples)
        } else if let Some((text, span)) = matrix {
            let scale = self.p_f64(p, "elevation_data_matrix_scale", 1.0);
            match values::matrix(&text) {
                Ok((rows, cols, data)) => (
                    ElevationSource::Matrix { scale },
                    Some((rows, cols, data.into_iter().map(|h| h * scale).collect())),
                ),
                Err(e) => {
                    self.diags
                        .error(span, format!("<elevation_data_matrix>: {e}"));
                    return None;
                }
            }
        } else if let Some(file) = dem {
            let offset = [
                self.p_f64(p, "dem_offset_x", 0.0),
                self.p_f64(p, "dem_offset_y", 0.0),
                self.p_f64(p, "dem_offset_z", 0.0),
            ];
            (ElevationSource::XyzrgbFile { file, offset }, None)
        } else {
            self.diags.error(el.span, "`elevation_map` needs `<elevation_image>`, `<elevation_data_matrix>` or `<dem_xyzrgb_file>`");
            return None;
        };
        let corner_x = self.p_opt_f64(p, "corner_min_x");
        let corner_y = self.p_opt_f64(p, "corner_min_y");
        let grid = match samples {
            Some((nx, ny, heights)) if nx >= 2 && ny >= 2 => Some(ElevationGrid {
                nx,
                ny,
                resolution,
                // Default: centred on the origin.
                corner_min: [
                    corner_x.unwrap_or(-0.5 * (nx - 1) as f64 * resolution),
                    corner_y.unwrap_or(-0.5 * (ny - 1) as f64 * resolution),
                ],
                heights,
            }),
            Some((nx, ny, _)) => {
                self.diags.error(
                    el.span,
                    format!("elevation data is {nx}x{ny}: at least 2x2 samples are needed"),
                );
                None
            }
            None => None,
        };
        Some(ElevationMap {
            source,
            grid,
            resolution,
            corner_min: [corner_x, corner_y],
            texture_image: self
                .p_text(p, "texture_image")
                .map(|(t, s)| self.resolve_uri(&t, s))
                .unwrap_or_default(),
            texture_image_rotate: {
                let rotate = self.p_int(p, "texture_image_rotate", 0);
                if ![0, 90, -90, 180, -180].contains(&rotate)
                    && let Some(el) = p.find("texture_image_rotate")
                {
                    self.diags.error(
                        el.span,
                        format!(
                            "<texture_image_rotate> is {rotate}: MVSim takes only 0, 90, -90 and 180"
                        ),
                    );
                }
                rotate
            },
            texture_extension: [
                self.p_non_negative(p, "texture_extension_x", 0.0),
                self.p_non_negative(p, "texture_extension_y", 0.0),
            ],
            mesh_color: self.p_color(p, "mesh_color", Color::rgb(0xa0, 0xe0, 0xa0)),
            model_split_size: self.p_non_negative(p, "model_split_size", 0.0),
            apply_kernel: self.p_string(p, "apply_kernel", ""),
        })
    }

    fn vertical_plane(&mut self, p: &mut Params<'_>) -> VerticalPlane {
        let mut openings = Vec::new();
        for kind in ["door", "window"] {
            for o in p.find_all(kind) {
                let mut op = Params::new(vec![o]);
                // Attributes or children, as MVSim accepts both here.
                let mut get = |l: &mut Self, names: &[&str], default: f64| -> f64 {
                    for n in names {
                        if let Some(v) = l.attr_opt_f64(o, n) {
                            return v;
                        }
                        if let Some(v) = l.p_opt_f64(&mut op, n) {
                            return v;
                        }
                    }
                    default
                };
                let position = get(self, &["position"], 0.5);
                let width = get(self, &["width"], 1.0);
                let z_min = get(self, &["z_min", "z_start"], 0.0);
                let z_max = get(self, &["z_max", "z_end"], 2.1);
                // `name` as an attribute or a child, as MVSim reads it (demo_walls uses the child).
                let name = match o.attr("name") {
                    Some(a) => a.value.clone(),
                    None => self
                        .p_text(&mut op, "name")
                        .map(|(t, _)| t.trim().to_owned())
                        .unwrap_or_default(),
                };
                if !(0.0..=1.0).contains(&position) || z_min >= z_max {
                    self.diags.error(
                        o.span,
                        format!("<{kind}>: position must be in [0, 1] and z_min below z_max"),
                    );
                }
                self.finish_params(op, &format!("a <{kind}>"));
                openings.push(WallOpening {
                    is_door: kind == "door",
                    name,
                    position,
                    width,
                    z_min,
                    z_max,
                });
            }
        }
        VerticalPlane {
            start: [self.p_f64(p, "x0", -10.0), self.p_f64(p, "y0", -10.0)],
            end: [self.p_f64(p, "x1", -10.0), self.p_f64(p, "y1", 10.0)],
            z: self.p_f64(p, "z", 0.0),
            height: self.p_positive(p, "height", 3.0),
            thickness: self.p_positive(p, "thickness", 0.02),
            color: self.p_color(p, "color", Color::rgb(0xa0, 0xa0, 0xa0)),
            enable_shadows: self.p_bool(p, "enable_shadows", true),
            cull_face: self.cull_face(p, "cull_face"),
            texture: self
                .p_text(p, "texture")
                .map(|(t, s)| self.resolve_uri(&t, s))
                .unwrap_or_default(),
            texture_size: [
                self.p_positive(p, "texture_size_x", 1.0),
                self.p_positive(p, "texture_size_y", 1.0),
            ],
            init_pose: self
                .p_text(p, "init_pose")
                .and_then(|(t, s)| self.pose_text(&t, s, "<init_pose>", false)),
            openings,
        }
    }

    fn property_region(&mut self, p: &mut Params<'_>, el: &Element) -> Option<PropertyRegion> {
        let property_name = self.p_string(p, "property_name", "");
        if property_name.is_empty() {
            self.diags
                .error(el.span, "`property_region` needs a `<property_name>`");
        }
        let value = if let Some(v) = self.p_opt_f64(p, "value_double") {
            PropertyValue::Double(v)
        } else if p.find("value_bool").is_some() {
            PropertyValue::Bool(self.p_bool(p, "value_bool", false))
        } else if let Some((t, _)) = self.p_text(p, "value_string") {
            PropertyValue::String(t.trim().to_owned())
        } else {
            self.diags.error(
                el.span,
                "`property_region` needs one of `<value_double>`, `<value_bool>`, `<value_string>`",
            );
            return None;
        };
        let bounds = [
            self.p_f64(p, "x_min", -1.0),
            self.p_f64(p, "x_max", 1.0),
            self.p_f64(p, "y_min", -1.0),
            self.p_f64(p, "y_max", 1.0),
            self.p_f64(p, "z_min", -1000.0),
            self.p_f64(p, "z_max", 1000.0),
        ];
        Some(PropertyRegion {
            property_name,
            value,
            bounds,
        })
    }

    /// `<walls>`.
    pub fn walls(&mut self, el: &Element) {
        let mut p = Params::new(vec![el]);
        let source = if let Some((uri, span)) = self.p_text(&mut p, "model_uri") {
            WallSource::Model(self.resolve_uri(&uri, span))
        } else if let Some(shape) = p.find("shape") {
            match self.polygon_or_polyline(shape) {
                Some(pts) => WallSource::Polyline(pts),
                None => return,
            }
        } else {
            self.diags
                .error(el.span, "`<walls>` needs `<model_uri>` or `<shape>`");
            return;
        };
        let mut transformation = [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ];
        if let Some((text, span)) = self.p_text(&mut p, "transformation") {
            match values::matrix(&text) {
                Ok((4, 4, m)) => {
                    for (i, row) in transformation.iter_mut().enumerate() {
                        row.copy_from_slice(&m[i * 4..i * 4 + 4]);
                    }
                }
                Ok((r, c, _)) => self.diags.error(
                    span,
                    format!("<transformation> is {r}x{c}: expected a 4x4 matrix"),
                ),
                Err(e) => self.diags.error(span, format!("<transformation>: {e}")),
            }
        }
        let walls = Walls {
            source,
            transformation,
            thickness: self.p_positive(&mut p, "wallThickness", 0.10),
            height: self.p_positive(&mut p, "wallHeight", 2.0),
            scale: self.p_positive(&mut p, "scale", 1.0),
            color: self.p_color(&mut p, "color", Color::rgb(0x32, 0x32, 0x32)),
        };
        self.finish_params(p, "<walls>");
        self.world.walls.push(walls);
    }

    fn polygon_or_polyline(&mut self, el: &Element) -> Option<Vec<[f64; 2]>> {
        let mut pts = Vec::new();
        for pt in el.elements() {
            let (raw, span) = pt.text();
            let text = self.value(&raw, span)?;
            let v = self.numbers_at(&text, span, 2, 2, "<pt>: expected `x y`")?;
            pts.push([v[0], v[1]]);
        }
        if pts.len() < 2 {
            self.diags
                .error(el.span, "a wall polyline needs at least 2 `<pt>`");
            return None;
        }
        Some(pts)
    }

    /// `<marker type="line_strip">`.
    pub fn marker(&mut self, el: &Element) {
        if let Some((t, span)) = self.optional_attr(el, "type")
            && t.trim() != "line_strip"
        {
            self.diags.error(
                span,
                format!("marker type `{}`: expected `line_strip`", t.trim()),
            );
            return;
        }
        let mut p = Params::new(vec![el]);
        let mut points = Vec::new();
        if let Some((text, span)) = self.p_text(&mut p, "points") {
            for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                if let Some(v) =
                    self.numbers_at(line, span, 2, 3, "<points>: expected `x y [z]` per line")
                {
                    points.push([v[0], v[1], v.get(2).copied().unwrap_or(0.0)]);
                }
            }
        }
        let translation = self
            .p_numbers(&mut p, "translation", 2, 3, "expected `x y [z]`")
            .map_or([0.0; 3], |v| [v[0], v[1], v.get(2).copied().unwrap_or(0.0)]);
        let color = self.p_color(&mut p, "color", Color::rgb(0xff, 0xff, 0xff));
        self.finish_params(p, "a <marker>");
        self.world.markers.push(Marker {
            points,
            color,
            translation,
        });
    }

    /// `<joint type=… body_a=… body_b=…/>` (bodies must already exist).
    pub fn joint(&mut self, el: &Element) {
        let Some((kind_text, kspan)) = self.required_attr(el, "type") else {
            return;
        };
        let kind = match kind_text.trim() {
            "distance" | "rope" => JointKind::Distance,
            "revolute" | "pin" => JointKind::Revolute,
            other => {
                self.diags.error(
                    kspan,
                    format!("joint type `{other}`: expected distance, rope, revolute or pin"),
                );
                return;
            }
        };
        let mut bodies = Vec::new();
        for attr in ["body_a", "body_b"] {
            let Some((name, span)) = self.required_attr(el, attr) else {
                return;
            };
            let name = name.trim().to_owned();
            if !self.body_names.contains(&name) {
                self.diags.error(
                    span,
                    format!(
                        "joint `{attr}` `{name}` is not a block or vehicle defined before the joint"
                    ),
                );
            }
            bodies.push(name);
        }
        let anchor = |l: &mut Self, name: &str| -> [f64; 2] {
            match l.optional_attr(el, name) {
                Some((t, s)) => l
                    .numbers_at(&t, s, 2, 2, &format!("attribute `{name}`: expected `x y`"))
                    .map_or([0.0; 2], |v| [v[0], v[1]]),
                None => [0.0; 2],
            }
        };
        let anchor_a = anchor(self, "anchor_a");
        let anchor_b = anchor(self, "anchor_b");
        let joint = Joint {
            kind,
            body_b: bodies.pop().unwrap_or_default(),
            body_a: bodies.pop().unwrap_or_default(),
            anchor_a,
            anchor_b,
            max_length: self.attr_f64(el, "max_length", 5.0),
            min_length: self.attr_f64(el, "min_length", 0.0),
            stiffness: self.attr_f64(el, "stiffness", 0.0),
            damping: self.attr_f64(el, "damping", 0.0),
            enable_limit: self.attr_bool(el, "enable_limit", false),
            lower_angle: self.attr_f64(el, "lower_angle_deg", 0.0).to_radians(),
            upper_angle: self.attr_f64(el, "upper_angle_deg", 0.0).to_radians(),
        };
        self.world.joints.push(joint);
    }
}

/// Reads a ROS `map_server` YAML file (the flat `key: value` subset it uses).
fn read_ros_map(path: &std::path::Path) -> Result<RosMap, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let mut fields = std::collections::BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(format!(
                "{}:{}: expected `key: value`",
                path.display(),
                n + 1
            ));
        };
        fields.insert(
            key.trim().to_owned(),
            (value.trim().trim_matches(['"', '\'']).to_owned(), n + 1),
        );
    }
    let get = |key: &str| {
        fields
            .get(key)
            .ok_or_else(|| format!("`{}` has no `{key}:` entry", path.display()))
    };
    let number = |key: &str, default: Option<f64>| -> Result<f64, String> {
        match (fields.get(key), default) {
            (None, Some(d)) => Ok(d),
            (None, None) => Err(format!("`{}` has no `{key}:` entry", path.display())),
            (Some((v, line)), _) => v.parse().map_err(|_| {
                format!(
                    "{}:{line}: `{key}` is `{v}`: expected a number",
                    path.display()
                )
            }),
        }
    };
    let (image, _) = get("image")?;
    let image = path
        .parent()
        .unwrap_or(std::path::Path::new(""))
        .join(image);
    if !image.is_file() {
        return Err(format!(
            "the map image `{}` named in `{}` does not exist",
            image.display(),
            path.display()
        ));
    }
    let (origin_text, origin_line) = get("origin")?;
    let origin = values::numbers(
        origin_text.trim_matches(['[', ']']),
        3,
        3,
        "expected `[x, y, yaw]`",
    )
    .map_err(|e| format!("{}:{origin_line}: origin: {e}", path.display()))?;
    let negate = match fields.get("negate").map(|(v, _)| v.as_str()) {
        None | Some("0") | Some("false") => false,
        Some("1") | Some("true") => true,
        Some(other) => {
            return Err(format!(
                "`{}`: negate is `{other}`: expected 0 or 1",
                path.display()
            ));
        }
    };
    Ok(RosMap {
        image: image.display().to_string(),
        resolution: number("resolution", None)?,
        origin: [origin[0], origin[1], origin[2]],
        negate,
        occupied_thresh: number("occupied_thresh", Some(0.65))?,
        free_thresh: number("free_thresh", Some(0.196))?,
    })
}

/// An MVSim occupancy image: black is occupied (occupancy > 0.5), `center` the pixel at the
/// world origin counted from the left and from the bottom (MRPT's `loadFromBitmap`; negative:
/// the image centre).
fn occupancy_from_image(
    file: &str,
    resolution: f64,
    center: [f64; 2],
) -> Result<OccupancyCells, String> {
    let grey = crate::raster::read_grey_png(std::path::Path::new(file))?;
    let cx = if center[0] >= 0.0 {
        center[0]
    } else {
        grey.cols as f64 / 2.0
    };
    let cy = if center[1] >= 0.0 {
        center[1]
    } else {
        grey.rows as f64 / 2.0
    };
    Ok(cells_from_grey(
        &grey,
        resolution,
        [-cx * resolution, -cy * resolution],
        0.0,
        |v| 1.0 - v > 0.5,
        crate::gridmap::shade_of_free_probability,
    ))
}

/// A ROS `map_server` map: occupancy `p = 1 - v` (or `v` when negated) above the threshold.
fn occupancy_from_ros_map(map: &RosMap) -> Result<OccupancyCells, String> {
    let grey = crate::raster::read_grey_png(std::path::Path::new(&map.image))?;
    let (negate, threshold) = (map.negate, map.occupied_thresh);
    Ok(cells_from_grey(
        &grey,
        map.resolution,
        [map.origin[0], map.origin[1]],
        map.origin[2],
        |v| (if negate { v } else { 1.0 - v }) > threshold,
        |v| {
            // map_server's trinary reading: occupied, free or unknown.
            let occupancy = if negate { v } else { 1.0 - v };
            if occupancy > threshold {
                crate::gridmap::shade_of_free_probability(0.0)
            } else if occupancy < map.free_thresh {
                crate::gridmap::shade_of_free_probability(1.0)
            } else {
                127
            }
        },
    ))
}

fn cells_from_grey(
    grey: &crate::raster::Grey,
    resolution: f64,
    origin: [f64; 2],
    yaw: f64,
    occupied: impl Fn(f64) -> bool,
    shade: impl Fn(f64) -> u8,
) -> OccupancyCells {
    // Image rows run top-down; cells bottom-up.
    let values = || {
        (0..grey.rows)
            .rev()
            .flat_map(|row| (0..grey.cols).map(move |col| (row, col)))
            .map(|(row, col)| grey.values[row * grey.cols + col])
    };
    OccupancyCells {
        cols: grey.cols,
        rows: grey.rows,
        resolution,
        origin,
        yaw,
        occupied: values().map(occupied).collect(),
        shade: values().map(shade).collect(),
    }
}
