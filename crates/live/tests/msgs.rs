//! The `passerby_msgs` definitions shipped in `ros/passerby_msgs` (what a ROS 2 user builds to
//! talk to us) are the ones our recordings and live topics embed and encode.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_record::ros::MsgType;
use std::path::Path;

/// A definition's fields: comments and blank lines dropped.
fn fields(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

fn shipped(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../ros/passerby_msgs/msg")
        .join(format!("{name}.msg"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    fields(&text)
}

#[test]
fn every_passerby_msgs_definition_we_embed_is_shipped_as_written() {
    let embedded: [MsgType; 5] = [
        passerby_record::truth::ACTOR_STATE_ARRAY,
        passerby_record::truth::CONTACT_ARRAY,
        passerby_live::CONTROL,
        passerby_live::STATUS,
        passerby_live::TRANSFORM_SET,
    ];
    let mut checked = Vec::new();
    for ty in embedded {
        let separator =
            "\n================================================================================\n";
        let mut sections = ty.definition.split(separator);
        let main = ty.name.rsplit('/').next().unwrap();
        assert_eq!(fields(sections.next().unwrap()), shipped(main), "{main}");
        checked.push(main.to_owned());
        for section in sections {
            let (header, body) = section.split_once('\n').unwrap();
            if let Some(dep) = header.strip_prefix("MSG: passerby_msgs/") {
                assert_eq!(fields(body), shipped(dep), "{dep} (in {main})");
                checked.push(dep.to_owned());
            }
        }
    }
    checked.sort();
    checked.dedup();
    // Every shipped message was compared.
    let mut files: Vec<String> = std::fs::read_dir(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ros/passerby_msgs/msg"),
    )
    .unwrap()
    .map(|e| {
        e.unwrap()
            .path()
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    })
    .collect();
    files.sort();
    assert_eq!(checked, files);
}
