//! How an actor moves when it has no path: one small controller per behavior, all behind
//! [`Controller`] (the path follower is one too).
//!
//! - [`Walker`]: AWSIM's `SimplePedestrianWalkerController` (`peers.md` §2.2): forward for
//!   `duration` at `speed`, a 180° turn in 0.5 s, back, another turn, then a hard reset to the
//!   start pose. Phase boundaries fall inside steps exactly, so a leg is `duration × speed`.
//! - [`Straight`]: along the initial heading for ever.
//! - [`Circle`]: a true circle of `radius` about the start point, counter-clockwise, facing
//!   along it, as a closed-form function of time (MAVS's "circle" drifts outwards; this does
//!   not). The actor starts on the circle, to the right of the start point as it faces.
//! - [`Keyframed`]: MVSim's keyframe animation of any object, for an actor without path or
//!   behavior; its speed for the gait is measured from its displacement.
//! - [`Wander`]: walks to random goals within `radius` of the start (or, for a MAVS crowd
//!   member, inside a box), pausing 0-2 s at each; goals come from the actor's own seeded
//!   generator, so a seed gives one walk (MAVS draws from the shared C `rand()`, concurrently
//!   for crowds, and so is not repeatable).
//! - [`MavsWaypoints`]: MAVS's waypoint paths: straight at each point in turn, the next one
//!   targeted within `2·speed·dt`, looping for ever.

pub use crate::motion::{Controller, Motion};
use crate::path::{Gaits, PathFollower, wrap};
use passerby_world::{ActorPath, KeyframeAnimation, Pose3, Waypoint, WaypointAnimation};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::f64::consts::{PI, TAU};

/// AWSIM's simple walker.
#[derive(Clone, Debug)]
pub struct Walker {
    start: Pose3,
    duration: f64,
    speed: f64,
    /// Seconds into the current cycle (two legs and two turns).
    cycle_time: f64,
}

/// AWSIM turns at 360°/s for 0.5 s.
const WALKER_TURN_SECONDS: f64 = 0.5;

impl Walker {
    /// A walker starting at `start`.
    pub fn new(start: Pose3, duration: f64, speed: f64) -> Walker {
        Walker {
            start,
            duration,
            speed,
            cycle_time: 0.0,
        }
    }

    /// The pose `t` seconds into a cycle.
    fn pose_at(&self, t: f64) -> Pose3 {
        let (leg, turn) = (self.duration, WALKER_TURN_SECONDS);
        let forward = |yaw: f64, from: (f64, f64), seconds: f64| {
            (
                from.0 + yaw.cos() * self.speed * seconds,
                from.1 + yaw.sin() * self.speed * seconds,
            )
        };
        let yaw0 = self.start.yaw;
        let origin = (self.start.x, self.start.y);
        let far = forward(yaw0, origin, leg);
        let back = forward(yaw0 + PI, far, leg);
        let (xy, yaw) = if t < leg {
            (forward(yaw0, origin, t), yaw0)
        } else if t < leg + turn {
            (far, yaw0 + PI * (t - leg) / turn)
        } else if t < 2.0 * leg + turn {
            (forward(yaw0 + PI, far, t - leg - turn), yaw0 + PI)
        } else {
            (
                back,
                yaw0 + PI + PI * ((t - 2.0 * leg - turn) / turn).min(1.0),
            )
        };
        Pose3 {
            x: xy.0,
            y: xy.1,
            yaw: wrap(yaw),
            ..self.start
        }
    }
}

impl Controller for Walker {
    fn step(&mut self, dt: f64, pose: &mut Pose3) -> Motion {
        let cycle = 2.0 * (self.duration + WALKER_TURN_SECONDS);
        self.cycle_time += dt;
        if self.cycle_time >= cycle {
            // The hard reset: back to the start pose, the next cycle begun.
            self.cycle_time -= cycle;
        }
        *pose = self.pose_at(self.cycle_time);
        let (leg, turn) = (self.duration, WALKER_TURN_SECONDS);
        let t = self.cycle_time;
        let walking = t < leg || (t >= leg + turn && t < 2.0 * leg + turn);
        Motion {
            speed: if walking { self.speed } else { 0.0 },
            yaw_rate: if walking { 0.0 } else { PI / turn },
        }
    }

    fn restart_from(&mut self, pose: Pose3) {
        *self = Walker::new(pose, self.duration, self.speed);
    }
}

/// Straight ahead for ever.
#[derive(Clone, Debug)]
pub struct Straight {
    /// m/s.
    pub speed: f64,
}

impl Controller for Straight {
    fn step(&mut self, dt: f64, pose: &mut Pose3) -> Motion {
        pose.x += pose.yaw.cos() * self.speed * dt;
        pose.y += pose.yaw.sin() * self.speed * dt;
        Motion {
            speed: self.speed,
            yaw_rate: 0.0,
        }
    }
}

/// A circle about a centre, counter-clockwise.
#[derive(Clone, Debug)]
pub struct Circle {
    center: Pose3,
    radius: f64,
    speed: f64,
    /// Angle of the actor seen from the centre, radians.
    angle: f64,
}

impl Circle {
    /// A circle about `center` (its yaw is the actor's initial heading); `pose` is where the
    /// actor starts on it.
    pub fn new(center: Pose3, radius: f64, speed: f64) -> (Circle, Pose3) {
        let circle = Circle {
            center,
            radius,
            speed,
            angle: center.yaw - PI / 2.0,
        };
        let pose = circle.pose();
        (circle, pose)
    }

    fn pose(&self) -> Pose3 {
        Pose3 {
            x: self.center.x + self.radius * self.angle.cos(),
            y: self.center.y + self.radius * self.angle.sin(),
            yaw: wrap(self.angle + PI / 2.0),
            ..self.center
        }
    }
}

impl Controller for Circle {
    fn step(&mut self, dt: f64, pose: &mut Pose3) -> Motion {
        let omega = if self.radius > 0.0 {
            self.speed / self.radius
        } else {
            0.0
        };
        self.angle = (self.angle + omega * dt).rem_euclid(TAU);
        *pose = self.pose();
        Motion {
            speed: self.speed,
            yaw_rate: omega,
        }
    }

    fn restart_from(&mut self, pose: Pose3) {
        // Continue on the same circle from the angle nearest to where the actor was put.
        self.angle = (pose.y - self.center.y).atan2(pose.x - self.center.x);
    }
}

/// Where a wanderer draws its goals.
#[derive(Clone, Copy, Debug)]
pub enum Region {
    /// A disc about a centre (x, y) of a radius.
    Disc([f64; 2], f64),
    /// An axis-aligned box, lower and upper corners (x, y).
    Box([f64; 2], [f64; 2]),
}

impl Region {
    fn draw(&self, rng: &mut ChaCha8Rng) -> (f64, f64) {
        match *self {
            Region::Disc([cx, cy], radius) => {
                // Uniform in the disc: sqrt of a uniform radius fraction.
                let r = radius * rng.random::<f64>().sqrt();
                let a = rng.random::<f64>() * TAU;
                (cx + r * a.cos(), cy + r * a.sin())
            }
            Region::Box([x0, y0], [x1, y1]) => (
                x0 + (x1 - x0) * rng.random::<f64>(),
                y0 + (y1 - y0) * rng.random::<f64>(),
            ),
        }
    }
}

/// Random goals within a region, one path segment at a time.
#[derive(Debug)]
pub struct Wander {
    region: Region,
    speed: f64,
    gaits: Gaits,
    rng: ChaCha8Rng,
    leg: PathFollower,
}

impl Wander {
    /// A wanderer starting at `start`, drawing goals in `region` from a generator seeded with
    /// `seed`.
    pub fn new(start: Pose3, region: Region, speed: f64, gaits: Gaits, seed: u64) -> Wander {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let leg = Self::next_leg(&mut rng, region, speed, gaits, start);
        Wander {
            region,
            speed,
            gaits,
            rng,
            leg,
        }
    }

    fn next_leg(
        rng: &mut ChaCha8Rng,
        region: Region,
        speed: f64,
        gaits: Gaits,
        from: Pose3,
    ) -> PathFollower {
        let (x, y) = region.draw(rng);
        let pause = rng.random::<f64>() * 2.0;
        let goal = Waypoint {
            pose: Pose3 {
                x,
                y,
                z: from.z,
                yaw: (y - from.y).atan2(x - from.x),
                ..Pose3::default()
            },
            is_3d: true,
            pause: pause.max(1e-3),
            animation: WaypointAnimation::Walk,
        };
        let path = ActorPath {
            looped: false,
            waypoints: vec![goal],
        };
        PathFollower::new(
            &path,
            from,
            Gaits {
                walk: speed,
                ..gaits
            },
        )
    }
}

impl Controller for Wander {
    fn step(&mut self, dt: f64, pose: &mut Pose3) -> Motion {
        if self.leg.finished() {
            self.leg = Self::next_leg(&mut self.rng, self.region, self.speed, self.gaits, *pose);
        }
        self.leg.step(dt, pose)
    }

    fn restart_from(&mut self, pose: Pose3) {
        self.leg.restart_from(pose);
    }
}

/// An actor moved by keyframes.
#[derive(Clone, Debug)]
pub struct Keyframed {
    init: Pose3,
    animation: KeyframeAnimation,
    time: f64,
}

impl Keyframed {
    /// Keyframes relative to `init`.
    pub fn new(init: Pose3, animation: KeyframeAnimation) -> Keyframed {
        Keyframed {
            init,
            animation,
            time: 0.0,
        }
    }
}

impl Controller for Keyframed {
    fn step(&mut self, dt: f64, pose: &mut Pose3) -> Motion {
        self.time += dt;
        let Some(next) = crate::keyframes::pose_at(&self.init, &self.animation, self.time) else {
            return Motion::default();
        };
        let motion = Motion {
            speed: (next.x - pose.x).hypot(next.y - pose.y) / dt,
            yaw_rate: wrap(next.yaw - pose.yaw) / dt,
        };
        *pose = next;
        motion
    }
}

/// MAVS's waypoint following.
#[derive(Clone, Debug)]
pub struct MavsWaypoints {
    points: Vec<[f64; 2]>,
    speed: f64,
    target: usize,
}

impl MavsWaypoints {
    /// Heads for the first point (MAVS starts at it: the caller places the actor there).
    pub fn new(points: Vec<[f64; 2]>, speed: f64) -> MavsWaypoints {
        MavsWaypoints {
            target: usize::from(points.len() > 1),
            points,
            speed,
        }
    }
}

impl Controller for MavsWaypoints {
    fn step(&mut self, dt: f64, pose: &mut Pose3) -> Motion {
        let Some(&[tx, ty]) = self.points.get(self.target) else {
            return Motion::default();
        };
        let (dx, dy) = (tx - pose.x, ty - pose.y);
        let distance = dx.hypot(dy);
        if distance < 2.0 * self.speed * dt {
            self.target = (self.target + 1) % self.points.len();
        }
        if distance == 0.0 {
            return Motion::default();
        }
        let yaw_before = pose.yaw;
        let travel = (self.speed * dt).min(distance);
        pose.x += dx / distance * travel;
        pose.y += dy / distance * travel;
        pose.yaw = dy.atan2(dx);
        Motion {
            speed: travel / dt,
            yaw_rate: wrap(pose.yaw - yaw_before) / dt,
        }
    }
}
