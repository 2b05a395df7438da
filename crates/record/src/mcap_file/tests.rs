//! The writer's files read back by the `mcap` crate: both kinds of chunk, a full disk, and
//! the compression choices.

use super::*;

fn file(compression: Compression) -> Vec<u8> {
    let mut w = McapWriter::new(Vec::new(), "ros2", "test", compression).unwrap();
    let s = w.add_schema("std_msgs/msg/String", "ros2msg", b"string data");
    let a = w.add_channel(s, "/a", "cdr");
    let b = w.add_channel(s, "/b", "cdr");
    let meta: BTreeMap<String, String> = [("k".to_string(), "v".to_string())].into();
    w.write_metadata("labels", &meta).unwrap();
    for i in 0..3000u64 {
        let header = MessageHeader {
            channel: if i.is_multiple_of(3) { b } else { a },
            sequence: i as u32,
            log_time: 1000 + i,
            publish_time: 1000 + i,
        };
        // Compressible payloads and one incompressible one spanning two LZ4 blocks.
        let data: Vec<u8> = if i == 1000 {
            (0..5_000_000u64)
                .map(|k| ((k * 2654435761) >> 13) as u8)
                .collect()
        } else {
            vec![(i % 251) as u8; 700]
        };
        let content = if i == 1000 {
            Content::Incompressible
        } else {
            Content::Compressible
        };
        w.write_message(&header, &data, content).unwrap();
    }
    w.finish().unwrap()
}

#[test]
fn the_mcap_crate_reads_every_message_back_in_order_from_both_kinds_of_chunk() {
    for compression in [Compression::Lz4, Compression::Auto, Compression::None] {
        let bytes = file(compression);
        let mut seen = 0u64;
        for message in mcap::MessageStream::new(&bytes).unwrap() {
            let m = message.unwrap();
            assert_eq!(m.log_time, 1000 + seen);
            assert_eq!(
                m.channel.topic,
                if seen.is_multiple_of(3) { "/b" } else { "/a" }
            );
            let expected = if seen == 1000 { 5_000_000 } else { 700 };
            assert_eq!(m.data.len(), expected);
            if seen == 1000 {
                assert_eq!(m.data[12345], ((12345u64 * 2654435761) >> 13) as u8);
            } else {
                assert!(m.data.iter().all(|&x| x == (seen % 251) as u8));
            }
            seen += 1;
        }
        assert_eq!(seen, 3000);
        let summary = mcap::Summary::read(&bytes).unwrap().unwrap();
        let stats = summary.stats.as_ref().unwrap();
        assert_eq!((stats.message_count, stats.channel_count), (3000, 2));
        assert_eq!(
            (stats.message_start_time, stats.message_end_time),
            (1000, 3999)
        );
        assert_eq!(stats.channel_message_counts[&1], 1000);
        assert!(
            summary.chunk_indexes.len() >= 3,
            "{}",
            summary.chunk_indexes.len()
        );
        // Messages found through the chunk and message indexes, as a seeking player does.
        let mut indexed = 0;
        for chunk in &summary.chunk_indexes {
            let index = summary.read_message_indexes(&bytes, chunk).unwrap();
            for (channel, entries) in index {
                for entry in entries {
                    // Seeking decompresses the chunk: a sample is enough.
                    if entry.log_time % 97 == 0 {
                        let m = summary.seek_message(&bytes, chunk, &entry).unwrap();
                        assert_eq!(m.channel.id, channel.id);
                        assert_eq!(m.log_time, entry.log_time);
                    }
                    indexed += 1;
                }
            }
        }
        assert_eq!(indexed, 3000);
        assert_eq!(summary.metadata_indexes.len(), 1);
    }
}

/// An output of `capacity` bytes that fails as a full disk does, cut back like a file.
struct SmallDisk {
    bytes: Vec<u8>,
    capacity: usize,
}

impl Write for SmallDisk {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = self.capacity - self.bytes.len();
        if room == 0 {
            return Err(io::Error::from(io::ErrorKind::StorageFull));
        }
        let n = buf.len().min(room);
        self.bytes.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Rewind for SmallDisk {
    fn stored_len(&mut self) -> io::Result<u64> {
        Ok(self.bytes.len() as u64)
    }
    fn rewind_to(&mut self, len: u64) -> io::Result<()> {
        self.bytes.truncate(len as usize);
        Ok(())
    }
}

/// Writes 3000 small messages on one channel; stops at the first failed write.
fn fill<W: Write>(w: &mut McapWriter<W>) -> io::Result<()> {
    let s = w.add_schema("std_msgs/msg/String", "ros2msg", b"string data");
    let a = w.add_channel(s, "/a", "cdr");
    for i in 0..3000u64 {
        let header = MessageHeader {
            channel: a,
            sequence: i as u32,
            log_time: 1000 + i,
            publish_time: 1000 + i,
        };
        let data: Vec<u8> = (0..700).map(|k| ((k * i) % 251) as u8).collect();
        w.write_message(&header, &data, Content::Compressible)?;
    }
    Ok(())
}

#[test]
fn a_full_disk_leaves_the_complete_chunks_with_a_summary() {
    let mut w = McapWriter::new(Vec::new(), "ros2", "test", Compression::Lz4).unwrap();
    fill(&mut w).unwrap();
    let whole = w.finish().unwrap();
    let whole_summary = mcap::Summary::read(&whole).unwrap().unwrap();
    let chunk_ends: Vec<u64> = whole_summary
        .chunk_indexes
        .iter()
        .map(|c| c.chunk_start_offset + c.chunk_length + c.message_index_length)
        .collect();
    assert!(chunk_ends.len() >= 3, "{chunk_ends:?}");
    // Disks that fill up inside every chunk (the last one as the file is closed), and
    // just after the first.
    let mut capacities: Vec<usize> = chunk_ends.iter().map(|&e| e as usize - 100).collect();
    capacities.push(chunk_ends[0] as usize + 10);
    for capacity in capacities {
        let disk = SmallDisk {
            bytes: Vec::new(),
            capacity,
        };
        let mut w = McapWriter::new(disk, "ros2", "test", Compression::Lz4).unwrap();
        // The last chunk is written when the file is closed.
        assert!(
            fill(&mut w).and_then(|()| w.close()).is_err(),
            "capacity {capacity}: the disk fills up"
        );
        let kept_chunks = chunk_ends.iter().filter(|&&e| e <= capacity as u64).count();
        let room = capacity as u64 - chunk_ends[..kept_chunks].last().copied().unwrap_or(0);
        let Ok((disk, kept)) = w.finish_after_error() else {
            // Only when the cut frees too little room for a summary.
            assert!(
                room < 1000,
                "capacity {capacity}: {room} bytes free after the cut"
            );
            continue;
        };
        assert_eq!(kept.chunks, kept_chunks as u64, "capacity {capacity}");
        assert!(
            disk.bytes.len() <= capacity,
            "the summary fits in the space freed"
        );
        let summary = mcap::Summary::read(&disk.bytes).unwrap().unwrap();
        assert_eq!(summary.chunk_indexes.len(), kept_chunks);
        assert_eq!(summary.stats.unwrap().message_count, kept.messages);
        let mut seen = 0;
        for message in mcap::MessageStream::new(&disk.bytes).unwrap() {
            assert_eq!(message.unwrap().log_time, 1000 + seen);
            seen += 1;
        }
        assert_eq!(seen, kept.messages);
        assert_eq!(
            kept.messages,
            whole_summary.chunk_indexes[..kept_chunks]
                .iter()
                .map(|c| summary_messages(&whole, &whole_summary, c))
                .sum::<u64>()
        );
    }
}

fn summary_messages(
    bytes: &[u8],
    summary: &mcap::Summary,
    chunk: &mcap::records::ChunkIndex,
) -> u64 {
    summary
        .read_message_indexes(bytes, chunk)
        .unwrap()
        .values()
        .map(|v| v.len() as u64)
        .sum()
}

#[test]
fn lz4_chunks_shrink_compressible_data_and_store_the_rest() {
    let lz4 = file(Compression::Lz4);
    let stored = file(Compression::None);
    assert!(
        lz4.len() < stored.len() * 3 / 4,
        "{} vs {}",
        lz4.len(),
        stored.len()
    );
}

#[test]
fn auto_compression_stores_the_large_incompressible_message_in_a_chunk_of_its_own() {
    let bytes = file(Compression::Auto);
    let summary = mcap::Summary::read(&bytes).unwrap().unwrap();
    let mut stored = Vec::new();
    for chunk in &summary.chunk_indexes {
        let index = summary.read_message_indexes(&bytes, chunk).unwrap();
        let times: Vec<u64> = index.values().flatten().map(|e| e.log_time).collect();
        if chunk.compression.is_empty() {
            stored.extend(times);
        } else {
            assert_eq!(chunk.compression, "lz4");
            assert!(!times.contains(&2000), "{times:?}");
        }
    }
    assert_eq!(
        stored,
        [2000],
        "only message 1000 (logged at 2000) is stored"
    );
    assert!(bytes.len() < file(Compression::Lz4).len() + 5_000_100);
}
