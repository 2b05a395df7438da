//! A recording read once from start to end, without holding it in memory: MCAP records
//! streamed through the `mcap` crate's linear reader (chunks decompressed and CRC-checked one at
//! a time, records bounded in size), each message handed over with its topic and type.

use crate::ExportError;
use mcap::records::Record;
use mcap::sans_io::linear_reader::{LinearReadEvent, LinearReader, LinearReaderOptions};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// The largest record read (a chunk, or a large message alone in one), 1 GiB: above any
/// message a world within the input limits (docs/limits.md) records, and a bound on memory.
const RECORD_LIMIT: usize = 1 << 30;

/// One message of a recording.
pub struct Message<'a> {
    /// Its topic.
    pub topic: &'a str,
    /// Its ROS 2 type (`sensor_msgs/msg/PointCloud2`).
    pub schema: &'a str,
    /// CDR bytes.
    pub data: &'a [u8],
}

/// Calls `on_message` for every message of `path` in file order and returns the metadata
/// records (name to their key-value maps). Stops at the first error `on_message` returns.
pub fn read_messages(
    path: &Path,
    mut on_message: impl FnMut(&Message<'_>) -> Result<(), ExportError>,
) -> Result<BTreeMap<String, BTreeMap<String, String>>, ExportError> {
    let io = |e: std::io::Error| ExportError::Io(path.to_owned(), e);
    let bad = |e: mcap::McapError| ExportError::Recording(path.to_owned(), e.to_string());
    let mut file = std::fs::File::open(path).map_err(io)?;
    let options = LinearReaderOptions::default().with_record_length_limit(RECORD_LIMIT);
    let mut reader = LinearReader::new_with_options(options);
    let mut schemas: BTreeMap<u16, String> = BTreeMap::new();
    let mut channels: BTreeMap<u16, (String, u16)> = BTreeMap::new();
    let mut metadata = BTreeMap::new();
    while let Some(event) = reader.next_event() {
        match event.map_err(bad)? {
            LinearReadEvent::ReadRequest(need) => {
                let read = file.read(reader.insert(need)).map_err(io)?;
                reader.notify_read(read);
            }
            LinearReadEvent::Record { opcode, data } => match mcap::parse_record(opcode, data) {
                Ok(Record::Schema { header, .. }) => {
                    schemas.insert(header.id, header.name);
                }
                Ok(Record::Channel(c)) => {
                    channels.insert(c.id, (c.topic, c.schema_id));
                }
                Ok(Record::Metadata(m)) => {
                    metadata.insert(m.name, m.metadata);
                }
                Ok(Record::Message { header, data }) => {
                    let Some((topic, schema_id)) = channels.get(&header.channel_id) else {
                        return Err(ExportError::Recording(
                            path.to_owned(),
                            format!("a message of unknown channel {}", header.channel_id),
                        ));
                    };
                    let schema = schemas.get(schema_id).map_or("", String::as_str);
                    on_message(&Message {
                        topic,
                        schema,
                        data: &data,
                    })?;
                }
                Ok(_) => {}
                Err(e) => return Err(bad(e)),
            },
        }
    }
    Ok(metadata)
}
