//! MAVS label files (`Object Labels`): which class each mesh file belongs to, and each class's
//! colour and number (`LoadSemanticLabels`).

use crate::json::Value;
use crate::read::{Report, json_file};
use passerby_diag::{SourceMap, Span};
use passerby_world::{Color, LabelClass};
use std::collections::BTreeMap;
use std::path::Path;

/// The label table of a scene.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    /// Whether a label file was read (missing labels are then worth a warning).
    pub loaded: bool,
    /// Classes in file order.
    pub classes: Vec<LabelClass>,
    /// (mesh path as the scene writes it, class).
    by_mesh: Vec<(String, String)>,
}

impl Labels {
    /// The class of a mesh, by its path exactly as the scene writes it (MAVS's built-in
    /// `textured_surface` is `ground` and `pothole` is `pothole`).
    pub fn class_of(&self, mesh: &str) -> Option<&str> {
        match mesh {
            "textured_surface" => return Some("ground"),
            "pothole" => return Some("pothole"),
            _ => {}
        }
        self.by_mesh
            .iter()
            .find(|(m, _)| m == mesh)
            .map(|(_, c)| c.as_str())
    }

    /// Every key (mesh path or OBJ group name) with its class, the built-ins included.
    pub fn table(&self) -> BTreeMap<String, String> {
        let mut table: BTreeMap<String, String> =
            [("textured_surface", "ground"), ("pothole", "pothole")]
                .into_iter()
                .map(|(k, c)| (k.to_owned(), c.to_owned()))
                .collect();
        for (key, class) in &self.by_mesh {
            table.entry(key.clone()).or_insert_with(|| class.clone());
        }
        table
    }

    /// Reads the label file at `path`, named by the scene at `named_at`.
    pub(crate) fn read(
        path: &Path,
        named_at: Span,
        report: &mut Report,
        sources: &mut SourceMap,
    ) -> Labels {
        let named_at = Some((named_at, "Object Labels"));
        let Some(root) = json_file(path, "label file", named_at, report, sources) else {
            return Labels::default();
        };
        let mut labels = Labels {
            loaded: true,
            ..Labels::default()
        };
        labels.read_root(&root, report);
        labels
    }

    fn read_root(&mut self, root: &Value, report: &mut Report) {
        if report.object(root, "$").is_none() {
            return;
        }
        report.unknown_members(root, "$", "label file", &["Label Colors", "Labels"]);
        if let Some(colors) = root.get("Label Colors")
            && let Some(items) = report.array(colors, "Label Colors")
        {
            for (i, item) in items.iter().enumerate() {
                let path = format!("Label Colors[{i}]");
                if report.object(item, &path).is_none() {
                    continue;
                }
                let name = report
                    .required(item, &path, "Label")
                    .and_then(|l| report.string(l, &format!("{path}.Label")));
                let color = report
                    .required(item, &path, "Color")
                    .and_then(|c| report.numbers::<3>(c, &format!("{path}.Color")));
                let number = report.optional(item, &path, "Label Number", i as f64, Report::number);
                if let (Some(name), Some(color), Some(number)) = (name, color, number) {
                    let byte = |v: f64| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
                    self.classes.push(LabelClass {
                        name: name.to_owned(),
                        color: Color::rgb(byte(color[0]), byte(color[1]), byte(color[2])),
                        number: number.max(0.0) as u32,
                    });
                }
            }
        }
        if let Some(list) = root.get("Labels")
            && let Some(items) = report.array(list, "Labels")
        {
            for (i, item) in items.iter().enumerate() {
                let path = format!("Labels[{i}]");
                let Some(pair) = report.array(item, &path) else {
                    continue;
                };
                if pair.len() != 2 {
                    report.error(
                        item.span,
                        &path,
                        format!("expected [mesh, label], found an array of {}", pair.len()),
                    );
                    continue;
                }
                let mesh = report.string(&pair[0], &format!("{path}[0]"));
                let class = report.string(&pair[1], &format!("{path}[1]"));
                if let (Some(mesh), Some(class)) = (mesh, class)
                    && self.class_of(mesh).is_none()
                {
                    self.by_mesh.push((mesh.to_owned(), class.to_owned()));
                }
            }
        }
    }
}
