//! Between the simulation and a publisher's thread: a queue bounded by bytes. The simulation
//! only queues (the state's messages already encoded, the observations shared, not copied);
//! the publisher encodes the observations and hands everything to its clients. When the
//! publisher falls behind, the oldest queued step is dropped and counted, so a slow or vanished
//! client never slows the simulation; in lockstep nothing is dropped and the queue waits for
//! room instead (the client sets the pace there anyway).

use crate::serve::Published;
use passerby_engine::{Encoder, Message, Sink, SinkError, Snapshot};
use passerby_record::StepEncodings;
use passerby_world::SensorRef;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// One step's output, or something to do once everything queued before it is published.
pub(crate) enum Item {
    /// A step: its state's messages and its observations.
    Step {
        messages: Vec<Message>,
        /// Its observations, encoded once for every publishing sink.
        encodings: Arc<StepEncodings>,
        /// When the step ended, on the wall clock (for latency measurements).
        ended: std::time::SystemTime,
    },
    /// Called once every item queued before it is published (a lockstep reply).
    Then(Box<dyn FnOnce() + Send>),
}

impl Item {
    fn bytes(&self) -> usize {
        match self {
            Item::Step {
                messages,
                encodings,
                ..
            } => passerby_record::encoder::queued_bytes(messages, encodings.observations()),
            Item::Then(_) => 0,
        }
    }
}

/// What a publisher did with the steps it was given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutboxStats {
    /// Steps handed to the clients.
    pub published: u64,
    /// Steps dropped because the publisher was behind.
    pub dropped: u64,
}

#[derive(Default)]
struct State {
    items: VecDeque<(Item, usize)>,
    bytes: usize,
    closed: bool,
    stats: OutboxStats,
}

/// The queue.
pub(crate) struct Outbox {
    state: Mutex<State>,
    changed: Condvar,
    max_bytes: usize,
    lossless: bool,
}

impl Outbox {
    /// A queue holding at most `max_bytes` (one larger step still passes when it is empty);
    /// `lossless` waits for room instead of dropping.
    pub(crate) fn new(max_bytes: usize, lossless: bool) -> Outbox {
        Outbox {
            state: Mutex::default(),
            changed: Condvar::new(),
            max_bytes,
            lossless,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `item`, dropping the oldest steps (or waiting) while it does not fit.
    pub(crate) fn push(&self, item: Item) {
        let bytes = item.bytes();
        let mut state = self.lock();
        while !state.closed && state.bytes > 0 && state.bytes + bytes > self.max_bytes {
            if self.lossless {
                state = self
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            // The oldest step goes; replies stay, in order.
            let Some(oldest) =
                (state.items.iter()).position(|(i, _)| matches!(i, Item::Step { .. }))
            else {
                break;
            };
            if let Some((_, b)) = state.items.remove(oldest) {
                state.bytes -= b;
                state.stats.dropped += 1;
            }
        }
        if state.closed {
            return;
        }
        state.bytes += bytes;
        state.items.push_back((item, bytes));
        self.changed.notify_all();
    }

    /// The next item, waiting for one; `None` once closed and empty.
    pub(crate) fn pop(&self) -> Option<Item> {
        let mut state = self.lock();
        loop {
            if let Some((item, bytes)) = state.items.pop_front() {
                state.bytes -= bytes;
                if matches!(item, Item::Step { .. }) {
                    state.stats.published += 1;
                }
                self.changed.notify_all();
                return Some(item);
            }
            if state.closed {
                return None;
            }
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// No more items: the publisher ends once it has published what is queued.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }

    /// Steps published and dropped so far.
    pub(crate) fn stats(&self) -> OutboxStats {
        self.lock().stats
    }
}

/// A publisher behind an outbox: what its sink, its lockstep replies and its publishing loop
/// share.
pub(crate) trait Publisher: Send + Sync + 'static {
    /// How it encodes.
    fn encoder(&self) -> &Encoder;
    /// Its queue.
    fn outbox(&self) -> &Outbox;
    /// Its name in the run's summary.
    fn name(&self) -> &'static str;
    /// Whether anyone listens to `sensor` (its observations are not encoded otherwise).
    fn listened(&self, sensor: &SensorRef) -> bool;
    /// Hands one message to the clients.
    fn send(&self, message: &Message);
    /// Called once a step is published, with its simulated time and when it ended on the
    /// wall clock.
    fn stepped(&self, _now: f64, _ended: std::time::SystemTime) {}
}

/// The engine's side of a publisher: encodes the state on the simulation thread (it is small)
/// and queues it with the observations, shared, not copied.
pub(crate) struct OutboxSink<P: Publisher> {
    shared: Arc<P>,
    static_sent: bool,
}

impl<P: Publisher> OutboxSink<P> {
    pub(crate) fn new(shared: Arc<P>) -> Self {
        OutboxSink {
            shared,
            static_sent: false,
        }
    }
}

impl<P: Publisher> Sink for OutboxSink<P> {
    fn step(&mut self, snapshot: &Snapshot<'_>) -> Result<(), SinkError> {
        let messages = (self.shared.encoder()).state_messages(snapshot, !self.static_sent);
        self.static_sent = true;
        self.shared.outbox().push(Item::Step {
            messages,
            encodings: snapshot.encodings.clone(),
            ended: std::time::SystemTime::now(),
        });
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Vec<String>, SinkError> {
        let stats = self.shared.outbox().stats();
        Ok(vec![format!(
            "{}: {} steps published, {} dropped (clients behind)",
            self.shared.name(),
            stats.published,
            stats.dropped
        )])
    }
}

/// A publisher's side of lockstep replies: called after what is queued now.
pub(crate) struct PublishedBy<P: Publisher>(pub(crate) Arc<P>);

impl<P: Publisher> Published for PublishedBy<P> {
    fn then(&self, then: Box<dyn FnOnce() + Send>) {
        self.0.outbox().push(Item::Then(then));
    }
}

/// A publishing thread's loop: each queued step's state messages, then the observations
/// someone listens to, encoded; replies when their turn comes. Ends when the outbox closes.
pub(crate) fn publish_queued<P: Publisher>(shared: &P) {
    let mut extras = Vec::new();
    while let Some(item) = shared.outbox().pop() {
        let (messages, encodings, ended) = match item {
            Item::Then(then) => {
                then();
                continue;
            }
            Item::Step {
                messages,
                encodings,
                ended,
            } => (messages, encodings, ended),
        };
        for m in &messages {
            shared.send(m);
        }
        let now = encodings.now();
        for (i, o) in encodings.observations().iter().enumerate() {
            if !shared.listened(o.sensor()) {
                continue;
            }
            for m in encodings.messages(i, shared.encoder()).iter() {
                shared.send(m);
            }
            shared.encoder().label_colours(o, now, &mut extras);
            for m in extras.drain(..) {
                shared.send(&m);
            }
        }
        shared.stepped(now, ended);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(bytes: usize, now: f64) -> Item {
        let m = Message {
            topic: "/t".into(),
            ty: passerby_record::ros::CLOCK,
            time: 0,
            data: vec![0; bytes],
            points: 0,
            content: passerby_record::mcap_file::Content::Compressible,
        };
        Item::Step {
            messages: vec![m],
            encodings: Arc::new(StepEncodings::new(Arc::new(Vec::new()), now)),
            ended: std::time::SystemTime::UNIX_EPOCH,
        }
    }

    #[test]
    fn a_full_outbox_drops_its_oldest_steps_and_keeps_replies_in_order() {
        let outbox = Outbox::new(100, false);
        outbox.push(step(60, 1.0));
        outbox.push(Item::Then(Box::new(|| {})));
        outbox.push(step(60, 2.0));
        outbox.push(step(60, 3.0));
        outbox.close();
        let mut seen = Vec::new();
        while let Some(item) = outbox.pop() {
            seen.push(match item {
                Item::Step { encodings, .. } => encodings.now(),
                Item::Then(_) => -1.0,
            });
        }
        assert_eq!(seen, [-1.0, 3.0]);
        assert_eq!(
            outbox.stats(),
            OutboxStats {
                published: 1,
                dropped: 2
            }
        );
    }

    #[test]
    fn a_lossless_outbox_waits_for_room() {
        let outbox = Arc::new(Outbox::new(100, true));
        outbox.push(step(60, 1.0));
        let pusher = {
            let outbox = outbox.clone();
            std::thread::spawn(move || outbox.push(step(60, 2.0)))
        };
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!pusher.is_finished(), "the second step waits for room");
        assert!(
            matches!(outbox.pop(), Some(Item::Step { encodings, .. }) if encodings.now() == 1.0)
        );
        pusher.join().unwrap();
        outbox.close();
        assert!(
            matches!(outbox.pop(), Some(Item::Step { encodings, .. }) if encodings.now() == 2.0)
        );
        assert_eq!(outbox.stats().dropped, 0);
    }
}
