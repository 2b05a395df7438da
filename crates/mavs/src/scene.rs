//! The keys of a MAVS scene file, read in MAVS's order (`EmbreeTracer::Load`): paths, labels,
//! layered surface, surface meshes, objects, vegetation, animations.

use crate::json::{Kind, Value};
use crate::labels::Labels;
use crate::placement::{Polygon, entry_rng, scatter};
use crate::read::Report;
use crate::surface::HeightSurface;
use crate::transform::{AxisSwaps, YprConvention, apply, object_transform, surface_transform};
use passerby_diag::{SourceMap, Span};
use passerby_world::{
    Affine3x4, Color, ElevationMap, ElevationSource, LabeledElement, LayeredSurface, MavsExtras,
    MeshFile, MeshInstance, Name, SurfaceMesh, Trail, World, WorldElement,
};
use rand::RngExt;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Top-level keys MAVS reads.
const SCENE_KEYS: [&str; 9] = [
    "VegOverrideFile",
    "PathToMeshes",
    "UseFullPaths",
    "Object Labels",
    "Layered Surface",
    "Surface Mesh",
    "Objects",
    "Vegetation Distribution",
    "Animations",
];

/// Pascals per PSI (MAVS stores the cone index ×6894.76).
const PA_PER_PSI: f64 = 6894.76;

/// Everything the keys need while reading.
pub(crate) struct SceneReader<'a> {
    pub report: &'a mut Report,
    pub sources: &'a mut SourceMap,
    pub data_dir: PathBuf,
    /// `PathToMeshes`, with its trailing separator: mesh names are appended to it.
    pub meshes_dir: String,
    pub use_full_paths: bool,
    pub convention: YprConvention,
    pub seed: u64,
    pub labels: Labels,
    pub world: World,
    /// Per mesh file name: instances placed so far (for unique names).
    names: HashMap<String, usize>,
    /// The surface random placement and planting stand things on, once built.
    pub(crate) heights: Option<HeightSurface>,
    /// Trails of the layered surface: width (m) and course (x, y).
    pub(crate) trails: Vec<(f64, Vec<[f64; 2]>)>,
    /// What sensors may ask for.
    pub limits: passerby_world::budget::Limits,
}

impl<'a> SceneReader<'a> {
    pub fn new(
        report: &'a mut Report,
        sources: &'a mut SourceMap,
        data_dir: PathBuf,
        convention: YprConvention,
        seed: u64,
        rig: World,
    ) -> SceneReader<'a> {
        let meshes_dir = format!("{}/", data_dir.join("scenes").join("meshes").display());
        SceneReader {
            report,
            sources,
            data_dir,
            meshes_dir,
            use_full_paths: false,
            convention,
            seed,
            labels: Labels::default(),
            world: rig,
            names: HashMap::new(),
            heights: None,
            trails: Vec::new(),
            limits: passerby_world::budget::Limits::default(),
        }
    }

    /// Reads the whole scene.
    pub fn read(&mut self, root: &Value) {
        if self.report.object(root, "$").is_none() {
            return;
        }
        self.report.unknown_members(root, "$", "scene", &SCENE_KEYS);
        let mut extras = MavsExtras::default();
        if let Some(v) = root.get("VegOverrideFile") {
            extras.veg_override_file = self.report.string(v, "VegOverrideFile").map(str::to_owned);
        }
        if let Some(v) = root.get("PathToMeshes")
            && let Some(dir) = self.report.string(v, "PathToMeshes")
        {
            // MAVS appends mesh names to this string; a relative one is taken from the data
            // folder (MAVS would take it from its working directory).
            let dir = if Path::new(dir).is_absolute() {
                dir.to_owned()
            } else {
                let trailing = if dir.ends_with(['/', '\\']) { "/" } else { "" };
                let joined = passerby_diag::normalize_path(&self.data_dir.join(dir));
                format!("{}{trailing}", joined.display())
            };
            // MAVS concatenates: a folder without its trailing separator glues onto the name.
            self.meshes_dir = dir;
        }
        if let Some(v) = root.get("UseFullPaths") {
            self.use_full_paths = self.report.boolean(v, "UseFullPaths").unwrap_or(false);
        }
        if let Some(v) = root.get("Object Labels")
            && let Some(name) = self.report.string(v, "Object Labels")
        {
            let path = PathBuf::from(format!("{}{name}", self.meshes_dir));
            self.labels = Labels::read(&path, v.span, self.report, self.sources);
            self.world.label_classes = self.labels.classes.clone();
        }
        if let Some(v) = root.get("Layered Surface") {
            extras.layered_surface = self.layered_surface(v);
        }
        if let Some(v) = root.get("Surface Mesh") {
            self.surface_meshes(v);
        }
        if let Some(v) = root.get("Objects") {
            self.objects(v);
        } else {
            self.report
                .warn(root.span, "$", "no `Objects`: the scene is empty");
        }
        if let Some(v) = root.get("Vegetation Distribution")
            && self.report.object(v, "Vegetation Distribution").is_some()
        {
            // Its own file's text: a simulation input file reads its scene from another file.
            let text = &self.sources.file(v.span.file).text;
            let raw = text.get(v.span.start as usize..v.span.end as usize);
            extras.vegetation_distribution = raw.map(str::to_owned);
            self.vegetation(v);
        }
        if let Some(v) = root.get("Animations") {
            self.animations(v);
        }
        self.world.mavs = Some(extras);
    }

    /// A path named by a surface key: as given with `UseFullPaths`, else in the meshes folder.
    fn surface_path(&self, name: &str) -> String {
        if self.use_full_paths {
            name.to_owned()
        } else {
            format!("{}{name}", self.meshes_dir)
        }
    }

    /// Checks that a mesh file exists; a missing one is a warning naming the key and the path,
    /// and its objects are still placed, with a placeholder in its place (as a missing remote
    /// model is), so a scene whose large meshes are not there still loads.
    fn existing(&mut self, path: String, span: Span, key: &str) -> Option<String> {
        if !Path::new(&path).is_file() {
            self.report.warn(
                span,
                key,
                format!("mesh file `{path}` does not exist; its objects get a placeholder"),
            );
        }
        Some(path)
    }

    pub(crate) fn swaps(&mut self, entry: &Value, path: &str) -> AxisSwaps {
        let mut flag = |key: &str| {
            self.report
                .optional(entry, path, key, false, Report::boolean)
                .unwrap_or(false)
        };
        AxisSwaps {
            y_to_z: flag("Rotate Y to Z"),
            x_to_y: flag("Rotate X to Y"),
            y_to_x: flag("Rotate Y to X"),
        }
    }

    /// `YawPitchRoll`, `Position`, `Scale` of a placement (3 numbers each when present).
    fn placement(&mut self, entry: &Value, path: &str) -> Option<([f64; 3], [f64; 3], [f64; 3])> {
        let ypr = self
            .report
            .optional(entry, path, "YawPitchRoll", [0.0; 3], Report::numbers::<3>);
        let position =
            self.report
                .optional(entry, path, "Position", [0.0; 3], Report::numbers::<3>);
        let scale = self
            .report
            .optional(entry, path, "Scale", [1.0; 3], Report::numbers::<3>)
            .filter(|s| scale_within_bounds(self.report, entry, path, s));
        Some((ypr?, position?, scale?))
    }

    fn layered_surface(&mut self, v: &Value) -> Option<LayeredSurface> {
        let key = "Layered Surface";
        self.report.object(v, key)?;
        self.report.unknown_members(
            v,
            key,
            "layered surface",
            &["Scale", "Mesh", "Heightmap", "Trail", "Layers", "Potholes"],
        );
        let scale = self
            .report
            .optional(v, key, "Scale", [1.0; 3], Report::numbers::<3>)
            .filter(|s| scale_within_bounds(self.report, v, key, s))?;
        let mut surface = LayeredSurface {
            mesh: None,
            heightmap: None,
            scale,
            trail: None,
            layers: None,
        };
        if let Some(m) = v.get("Mesh") {
            let name = self.report.string(m, "Layered Surface.Mesh")?;
            let path = self.surface_path(name);
            let path = self.existing(path, m.span, "Layered Surface.Mesh")?;
            // What sensors see as the ground (MAVS's `layered_surface_` scene).
            let world_from_model = object_transform(
                [0.0; 3],
                [0.0; 3],
                scale,
                AxisSwaps::default(),
                self.convention,
            );
            self.world.meshes.push(MeshInstance {
                name: "layered_surface".into(),
                file: Arc::new(MeshFile {
                    model_uri: path.clone(),
                    label: Some("ground".into()),
                    smooth_normals: true,
                    group_labels: None,
                }),
                world_from_model,
            });
            surface.mesh = Some(path);
        } else if let Some(h) = v.get("Heightmap") {
            let hk = "Layered Surface.Heightmap";
            self.report.object(h, hk)?;
            let map = self.report.required(h, hk, "Map")?;
            let map = self.report.string(map, &format!("{hk}.Map"))?;
            let resolution = self
                .report
                .optional(h, hk, "Resolution", 1.0, Report::number)?;
            let z_scale = self.report.optional(h, hk, "Scale", 0.1, Report::number)?;
            let image = self.surface_path(map);
            if let Some(grid) =
                crate::heightmap::grid(&image, resolution, z_scale, self.report, h.span, hk)
            {
                // Both what sensors see and the surface heights come from (MAVS writes it out
                // as a mesh and loads it as both).
                self.world.elements.push(LabeledElement {
                    element: WorldElement::ElevationMap(ElevationMap {
                        source: ElevationSource::Heightmap {
                            file: image.clone(),
                            metres_per_level: z_scale,
                        },
                        resolution,
                        corner_min: [Some(grid.corner_min[0]), Some(grid.corner_min[1])],
                        grid: Some(grid),
                        texture_image: String::new(),
                        texture_image_rotate: 0,
                        texture_extension: [0.0; 2],
                        mesh_color: Color::rgb(0xa0, 0xa0, 0x80),
                        model_split_size: 0.0,
                        apply_kernel: String::new(),
                    }),
                    label: Some("ground".into()),
                });
            }
            surface.heightmap = Some((image, resolution, z_scale));
        }
        if let Some(t) = v.get("Trail") {
            surface.trail = self.trail(t);
        }
        if let Some(l) = v.get("Layers") {
            let name = self.report.string(l, "Layered Surface.Layers")?;
            surface.layers = Some(self.surface_path(name));
        }
        Some(surface)
    }

    fn trail(&mut self, t: &Value) -> Option<Trail> {
        let key = "Layered Surface.Trail";
        self.report.object(t, key)?;
        let width = |r: &mut Report, k: &str| r.optional(t, key, k, 0.0, Report::number);
        let trail_width = width(self.report, "Trail Width")?;
        let track_width = width(self.report, "Track Width")?;
        let wheelbase = width(self.report, "Wheelbase")?;
        let mut paths = Vec::new();
        if let Some(p) = t.get("Path") {
            let names: Vec<(&str, String)> = match &p.kind {
                Kind::String(s) => vec![(s.as_str(), format!("{key}.Path"))],
                Kind::Array(items) => items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, item)| {
                        let path = format!("{key}.Path[{i}]");
                        self.report.string(item, &path).map(|s| (s, path))
                    })
                    .collect(),
                _ => {
                    self.report.error(
                        p.span,
                        &format!("{key}.Path"),
                        "expected a string or an array of strings",
                    );
                    return None;
                }
            };
            for (name, key) in names {
                // Trails are relative to the data folder, not the meshes folder.
                let file = if self.use_full_paths {
                    name.to_owned()
                } else {
                    self.data_dir.join(name).display().to_string()
                };
                // Its course keeps vegetation off the trail.
                match std::fs::read_to_string(&file).map(|text| crate::poses::read_vprp(&text)) {
                    Ok(Ok(poses)) => self.trails.push((
                        trail_width,
                        poses
                            .iter()
                            .map(|p| [p.position[0], p.position[1]])
                            .collect(),
                    )),
                    Ok(Err(e)) => self.report.warn(
                        p.span,
                        &key,
                        format!(
                            "{file}:{}: {}; the trail is not kept clear of plants",
                            e.line, e.message
                        ),
                    ),
                    Err(e) => self.report.warn(
                        p.span,
                        &key,
                        format!(
                            "cannot read `{file}` ({e}); the trail is not kept clear of plants"
                        ),
                    ),
                }
                paths.push(file);
            }
        }
        Some(Trail {
            trail_width,
            track_width,
            wheelbase,
            paths,
        })
    }

    fn surface_meshes(&mut self, v: &Value) {
        let Some(entries) = self.report.array(v, "Surface Mesh") else {
            return;
        };
        for (i, entry) in entries.iter().enumerate() {
            let path = format!("Surface Mesh[{i}]");
            if self.report.object(entry, &path).is_none() {
                continue;
            }
            self.report.unknown_members(
                entry,
                &path,
                "surface mesh",
                &[
                    "Mesh",
                    "Material",
                    "Cone Index",
                    "Rotate Y to Z",
                    "Rotate X to Y",
                    "Rotate Y to X",
                    "YawPitchRoll",
                    "Position",
                    "Scale",
                ],
            );
            let Some(mesh) = self.report.required(entry, &path, "Mesh") else {
                continue;
            };
            let Some(name) = self.report.string(mesh, &format!("{path}.Mesh")) else {
                continue;
            };
            let file = self.surface_path(name);
            let file = self.existing(file, mesh.span, &format!("{path}.Mesh"));
            let swaps = self.swaps(entry, &path);
            let placement = self.placement(entry, &path);
            let material = match entry.get("Material") {
                Some(m) => self
                    .report
                    .string(m, &format!("{path}.Material"))
                    .unwrap_or("dry"),
                None => "dry",
            };
            if !["dry", "wet", "ice", "snow", "clay", "sand"].contains(&material) {
                self.report.warn(
                    entry.get("Material").map_or(entry.span, |m| m.span),
                    &format!("{path}.Material"),
                    format!("unknown material `{material}`; MAVS knows dry, wet, ice, snow, clay and sand"),
                );
            }
            let cone_index =
                self.report
                    .optional(entry, &path, "Cone Index", 250.0, Report::number);
            let (Some(file), Some((ypr, position, scale)), Some(cone_index)) =
                (file, placement, cone_index)
            else {
                continue;
            };
            self.world.surfaces.push(SurfaceMesh {
                model_uri: file,
                world_from_model: surface_transform(ypr, position, scale, swaps, self.convention),
                material: material.to_owned(),
                cone_index_pa: cone_index * PA_PER_PSI,
            });
        }
    }

    fn objects(&mut self, v: &Value) {
        let Some(entries) = self.report.array(v, "Objects") else {
            return;
        };
        // Heights for random placement: the surface meshes, or else the first entry's meshes.
        let mut heights: Option<HeightSurface> = self.heights.take();
        for (i, entry) in entries.iter().enumerate() {
            let path = format!("Objects[{i}]");
            if self.report.object(entry, &path).is_none() {
                continue;
            }
            self.report.unknown_members(
                entry,
                &path,
                "object",
                &[
                    "Mesh",
                    "Material",
                    "Rotate Y to Z",
                    "Rotate X to Y",
                    "Rotate Y to X",
                    "Smooth Normals",
                    "Label By Group",
                    "Instances",
                    "Random",
                ],
            );
            let first_placed = self.world.meshes.len();
            self.object(entry, &path, i, &mut heights);
            let has_grid = self
                .world
                .elements
                .iter()
                .any(|e| matches!(e.element, WorldElement::ElevationMap(_)));
            if heights.is_none()
                && i == 0
                && self.world.surfaces.is_empty()
                && !has_grid
                && entry.get("Instances").is_some()
            {
                // MAVS's documented rule: without a surface mesh the first object is the ground.
                let placed: Vec<(String, Affine3x4)> = self.world.meshes[first_placed..]
                    .iter()
                    .map(|m| (m.file.model_uri.clone(), m.world_from_model))
                    .collect();
                heights = Some(HeightSurface::build(
                    &placed,
                    Vec::new(),
                    self.report,
                    entry.span,
                    &path,
                ));
            }
        }
        self.heights = heights;
    }

    /// The surface meshes and heightmap grids as a height surface, if the scene has any.
    pub(crate) fn surface_heights(&mut self, span: Span, path: &str) -> Option<HeightSurface> {
        let grids: Vec<passerby_world::ElevationGrid> = self
            .world
            .elements
            .iter()
            .filter_map(|e| match &e.element {
                WorldElement::ElevationMap(m) => m.grid.clone(),
                _ => None,
            })
            .collect();
        if self.world.surfaces.is_empty() && grids.is_empty() {
            return None;
        }
        let surfaces: Vec<(String, Affine3x4)> = self
            .world
            .surfaces
            .iter()
            .map(|s| (s.model_uri.clone(), s.world_from_model))
            .collect();
        Some(HeightSurface::build(
            &surfaces,
            grids,
            self.report,
            span,
            path,
        ))
    }

    fn object(
        &mut self,
        entry: &Value,
        path: &str,
        index: usize,
        heights: &mut Option<HeightSurface>,
    ) {
        // A bad mesh name does not stop the rest of the entry from being checked.
        let mesh = self.report.required(entry, path, "Mesh");
        let name = mesh.and_then(|m| self.report.string(m, &format!("{path}.Mesh")));
        // Objects ignore UseFullPaths (MAVS).
        let file = match (mesh, name) {
            (Some(m), Some(name)) => {
                let file = format!("{}{name}", self.meshes_dir);
                self.existing(file, m.span, &format!("{path}.Mesh"))
            }
            _ => None,
        };
        let swaps = self.swaps(entry, path);
        let smooth_normals = self
            .report
            .optional(entry, path, "Smooth Normals", false, Report::boolean)
            .unwrap_or(false);
        if let Some(m) = entry.get("Material") {
            self.report.warn_once(
                "object material",
                m.span,
                format!("`{path}.Material`: material overrides are not applied yet; the mesh's own .mtl is used"),
            );
        }
        // With `Label By Group`, MAVS looks each OBJ group's name up in the label table.
        let group_labels = match entry.get("Label By Group") {
            Some(g) => match self.report.boolean(g, &format!("{path}.Label By Group")) {
                Some(true) => Some(self.labels.table()),
                _ => None,
            },
            None => None,
        };
        let label = match name.map(|n| (n, self.labels.class_of(n))) {
            Some((_, Some(class))) => Some(class.to_owned()),
            Some((name, None)) => {
                if self.labels.loaded
                    && let Some(m) = mesh
                {
                    self.report.warn_once(
                        &format!("no label {name}"),
                        m.span,
                        format!("`{path}.Mesh`: no label for `{name}` in the label file (MAVS: NO LABEL FOUND FOR MESH)"),
                    );
                }
                None
            }
            None => None,
        };
        let placements: Vec<Affine3x4> = if let Some(instances) = entry.get("Instances") {
            self.instances(instances, &format!("{path}.Instances"), swaps)
        } else if let Some(random) = entry.get("Random") {
            if heights.is_none() {
                *heights = self.surface_heights(entry.span, path);
            }
            self.random(
                random,
                &format!("{path}.Random"),
                swaps,
                index,
                heights.as_ref(),
            )
        } else {
            self.report.error(
                entry.span,
                path,
                "neither `Instances` nor `Random`: nothing to place (MAVS exits here)",
            );
            return;
        };
        let (Some(file), Some(name)) = (file, name) else {
            return;
        };
        let stem = Path::new(name)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("mesh")
            .to_owned();
        // Shared by every placement.
        let file = Arc::new(MeshFile {
            model_uri: file,
            label,
            smooth_normals,
            group_labels,
        });
        let shared_stem: Arc<str> = stem.as_str().into();
        for world_from_model in placements {
            let n = self.names.entry(stem.clone()).or_insert(0);
            *n += 1;
            self.world.meshes.push(MeshInstance {
                name: u32::try_from(*n).map_or_else(
                    |_| format!("{stem}_{n}").into(),
                    |n| Name::numbered(&shared_stem, n),
                ),
                file: file.clone(),
                world_from_model,
            });
        }
    }

    fn instances(&mut self, v: &Value, path: &str, swaps: AxisSwaps) -> Vec<Affine3x4> {
        let Some(items) = self.report.array(v, path) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let ipath = format!("{path}[{i}]");
            if self.report.object(item, &ipath).is_none() {
                continue;
            }
            self.report.unknown_members(
                item,
                &ipath,
                "instance",
                &["YawPitchRoll", "Position", "Scale"],
            );
            if let Some((ypr, position, scale)) = self.placement(item, &ipath) {
                out.push(object_transform(
                    ypr,
                    position,
                    scale,
                    swaps,
                    self.convention,
                ));
            }
        }
        out
    }

    fn random(
        &mut self,
        v: &Value,
        path: &str,
        swaps: AxisSwaps,
        index: usize,
        heights: Option<&HeightSurface>,
    ) -> Vec<Affine3x4> {
        if self.report.object(v, path).is_none() {
            return Vec::new();
        }
        self.report.unknown_members(
            v,
            path,
            "random",
            &["Number", "Polygon", "Offset", "Scale", "Minimum Spacing"],
        );
        let r = &mut *self.report;
        let number = r.required(v, path, "Number").and_then(|n| {
            let npath = format!("{path}.Number");
            let x = r.number(n, &npath)?;
            if x < 0.0 || x.fract() != 0.0 || x > 10_000_000.0 {
                r.error(
                    n.span,
                    &npath,
                    format!("expected a whole number of instances, found {x}"),
                );
                return None;
            }
            Some(x as usize)
        });
        let polygon = r.required(v, path, "Polygon").and_then(|p| {
            let ppath = format!("{path}.Polygon");
            let items = r.array(p, &ppath)?;
            let mut points = Vec::new();
            for (i, item) in items.iter().enumerate() {
                points.push(r.numbers::<2>(item, &format!("{ppath}[{i}]"))?);
            }
            match Polygon::new(points) {
                Ok(polygon) => Some(polygon),
                Err(e) => {
                    r.error(p.span, &ppath, e);
                    None
                }
            }
        });
        let offset = r.optional(v, path, "Offset", [0.0; 3], Report::numbers::<3>);
        let spacing = r.optional(v, path, "Minimum Spacing", 0.0, Report::number);
        let scale = match v.get("Scale") {
            None => Some(ScaleRange::Uniform(1.0, 1.0)),
            Some(s) => scale_range(r, s, &format!("{path}.Scale")).filter(|range| {
                let factors = match range {
                    ScaleRange::Uniform(lo, hi) => vec![*lo, *hi],
                    ScaleRange::PerAxis(axes) => axes.iter().flatten().copied().collect(),
                };
                scale_within_bounds(r, v, path, &factors)
            }),
        };
        let (Some(number), Some(polygon), Some(offset), Some(spacing), Some(scale)) =
            (number, polygon, offset, spacing, scale)
        else {
            return Vec::new();
        };
        let mut rng = entry_rng(self.seed, index);
        let points = match scatter(&polygon, number, spacing, &mut rng) {
            Ok(points) => points,
            Err(e) => {
                let span = v.get("Polygon").map_or(v.span, |p| p.span);
                r.error(span, &format!("{path}.Polygon"), e);
                return Vec::new();
            }
        };
        if points.len() < number {
            r.warn(
                v.span,
                path,
                format!(
                    "placed {} of {number}: the polygon has no room for more at a minimum spacing of {spacing} m",
                    points.len()
                ),
            );
        }
        points
            .into_iter()
            .map(|[x, y]| {
                let yaw = rng.random::<f64>() * std::f64::consts::TAU;
                let s = scale.draw(&mut rng);
                let z = heights.and_then(|h| h.height_at(x, y)).unwrap_or(0.0);
                let position = [x + offset[0], y + offset[1], z + offset[2]];
                object_transform([yaw, 0.0, 0.0], position, s, swaps, YprConvention::Current)
            })
            .collect()
    }
}

/// `Random.Scale`: `[lo, hi]` (the same factor on every axis) or `[[xlo, xhi], [ylo, yhi],
/// [zlo, zhi]]`.
enum ScaleRange {
    Uniform(f64, f64),
    PerAxis([[f64; 2]; 3]),
}

impl ScaleRange {
    fn draw(&self, rng: &mut rand_chacha::ChaCha8Rng) -> [f64; 3] {
        let mut between = |lo: f64, hi: f64| lo + (hi - lo) * rng.random::<f64>();
        match *self {
            ScaleRange::Uniform(lo, hi) => [between(lo, hi); 3],
            ScaleRange::PerAxis(r) => [
                between(r[0][0], r[0][1]),
                between(r[1][0], r[1][1]),
                between(r[2][0], r[2][1]),
            ],
        }
    }
}

/// The largest scale factor a placement may have. `brick_scene.json` stretches a surface ten
/// thousand times; a factor of 1e9 (a typo, or a mutated file) made 3000 random cubes each span
/// the whole scene, so that every ray had to test all of them (a 0.5 s run took minutes).
pub const MAX_SCALE: f64 = 1e5;

/// Whether every factor of `entry`'s `Scale` is within [`MAX_SCALE`]; reports it if not.
pub(crate) fn scale_within_bounds(
    r: &mut Report,
    entry: &Value,
    path: &str,
    factors: &[f64],
) -> bool {
    if factors.iter().all(|f| f.abs() <= MAX_SCALE) {
        return true;
    }
    let span = entry.get("Scale").map_or(entry.span, |s| s.span);
    r.error(
        span,
        &format!("{path}.Scale"),
        format!("a scale factor over {MAX_SCALE:e} in {factors:?}: no object is that large"),
    );
    false
}

fn scale_range(r: &mut Report, v: &Value, path: &str) -> Option<ScaleRange> {
    let items = r.array(v, path)?;
    match items.first().map(|i| &i.kind) {
        Some(Kind::Array(_)) if items.len() == 3 => {
            let mut axes = [[0.0; 2]; 3];
            for (k, item) in items.iter().enumerate() {
                axes[k] = r.numbers::<2>(item, &format!("{path}[{k}]"))?;
            }
            Some(ScaleRange::PerAxis(axes))
        }
        _ if items.len() == 2 => {
            let [lo, hi] = r.numbers::<2>(v, path)?;
            Some(ScaleRange::Uniform(lo, hi))
        }
        _ => {
            r.error(
                v.span,
                path,
                format!(
                    "expected [lo, hi] or [[xlo, xhi], [ylo, yhi], [zlo, zhi]], found {}",
                    crate::read::found(v)
                ),
            );
            None
        }
    }
}

/// Where a placed point lands, for tests and summaries.
pub fn origin_of(m: &Affine3x4) -> [f64; 3] {
    apply(m, [0.0; 3])
}
