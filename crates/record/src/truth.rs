//! Ground-truth topics: where every actor is and what it is doing, contacts, collisions.
//!
//! - `/ground_truth/actors` (`vision_msgs/Detection3DArray`): per actor a box around its collision
//!   capsule (centre at half height, size 2r x 2r x h, turned by its yaw), its class as the
//!   hypothesis and its instance id as the detection id.
//! - `/ground_truth/actor_markers` (`visualization_msgs/MarkerArray`): each actor's capsule as a
//!   cylinder and its skeleton as line segments, in `map`.
//! - `/ground_truth/actor_states` (`passerby_msgs/msg/ActorStateArray`, defined below and embedded):
//!   pose, speed, gait, clip and clip time, and the parts set from outside.
//! - `/ground_truth/contacts` (`passerby_msgs/msg/ContactArray`): contacts that began in a step.
//! - `/<veh>/collision` (`std_msgs/Bool`, as MVSim): whether an actor touches the vehicle.

use crate::cdr::Cdr;
use crate::ros::{MsgType, header};
use passerby_sim::gait::Gait;
use passerby_sim::{ActorState, Contact};

use crate::ros::deps;

/// `vision_msgs/msg/Detection3DArray` (ROS 2 Humble and later).
pub const DETECTION3D_ARRAY: MsgType = MsgType {
    name: "vision_msgs/msg/Detection3DArray",
    definition: deps!(
        "std_msgs/Header header\nDetection3D[] detections\n",
        "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        "MSG: vision_msgs/Detection3D\nstd_msgs/Header header\nObjectHypothesisWithPose[] results\nBoundingBox3D bbox\nstring id\n",
        "MSG: vision_msgs/ObjectHypothesisWithPose\nObjectHypothesis hypothesis\ngeometry_msgs/PoseWithCovariance pose\n",
        "MSG: vision_msgs/ObjectHypothesis\nstring class_id\nfloat64 score\n",
        "MSG: geometry_msgs/PoseWithCovariance\nPose pose\nfloat64[36] covariance\n",
        "MSG: geometry_msgs/Pose\nPoint position\nQuaternion orientation\n",
        "MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n",
        "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n",
        "MSG: vision_msgs/BoundingBox3D\ngeometry_msgs/Pose center\ngeometry_msgs/Vector3 size\n",
        "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n"
    ),
};

/// `visualization_msgs/msg/MarkerArray` (ROS 2 Humble's Marker).
pub const MARKER_ARRAY: MsgType = MsgType {
    name: "visualization_msgs/msg/MarkerArray",
    definition: deps!(
        "Marker[] markers\n",
        "MSG: visualization_msgs/Marker\nint32 ARROW=0\nint32 CUBE=1\nint32 SPHERE=2\nint32 CYLINDER=3\nint32 LINE_STRIP=4\nint32 LINE_LIST=5\nint32 ADD=0\nstd_msgs/Header header\nstring ns\nint32 id\nint32 type\nint32 action\ngeometry_msgs/Pose pose\ngeometry_msgs/Vector3 scale\nstd_msgs/ColorRGBA color\nbuiltin_interfaces/Duration lifetime\nbool frame_locked\ngeometry_msgs/Point[] points\nstd_msgs/ColorRGBA[] colors\nstring text\nstring mesh_resource\nbool mesh_use_embedded_materials\n",
        "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        "MSG: geometry_msgs/Pose\nPoint position\nQuaternion orientation\n",
        "MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n",
        "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n",
        "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n",
        "MSG: std_msgs/ColorRGBA\nfloat32 r\nfloat32 g\nfloat32 b\nfloat32 a\n",
        "MSG: builtin_interfaces/Duration\nint32 sec\nuint32 nanosec\n"
    ),
};

/// `passerby_msgs/msg/ActorStateArray` (ours).
pub const ACTOR_STATE_ARRAY: MsgType = MsgType {
    name: "passerby_msgs/msg/ActorStateArray",
    definition: deps!(
        "std_msgs/Header header\nActorState[] actors\n",
        "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        "MSG: passerby_msgs/ActorState\nstring name\nuint32 instance\ngeometry_msgs/Pose pose\nfloat64 speed\nstring gait\nstring clip\nfloat64 clip_time\nbool held\nPartTransform[] parts\n",
        "MSG: geometry_msgs/Pose\nPoint position\nQuaternion orientation\n",
        "MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n",
        "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n",
        "MSG: passerby_msgs/PartTransform\nstring part\ngeometry_msgs/Vector3 translation\ngeometry_msgs/Vector3 yaw_pitch_roll\ngeometry_msgs/Vector3 scale\n",
        "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n"
    ),
};

/// `passerby_msgs/msg/ContactArray` (ours).
pub const CONTACT_ARRAY: MsgType = MsgType {
    name: "passerby_msgs/msg/ContactArray",
    definition: deps!(
        "std_msgs/Header header\nContact[] contacts\n",
        "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        "MSG: passerby_msgs/Contact\nstring object\nstring other\ngeometry_msgs/Point point\n",
        "MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n"
    ),
};

/// `std_msgs/msg/Bool`.
pub const BOOL: MsgType = MsgType {
    name: "std_msgs/msg/Bool",
    definition: "bool data\n",
};

fn pose(c: &mut Cdr, p: &passerby_world::Pose3, dz: f64) {
    let q = p.rotation();
    c.f64(p.x).f64(p.y).f64(p.z + dz);
    c.f64(q.x).f64(q.y).f64(q.z).f64(q.w);
}

/// An actor's capsule: radius and height.
pub type Capsule = (f64, f64);

/// Detections of every actor (instance ids and classes by actor).
pub fn detections(nanos: u64, actors: &[ActorState], info: &[(u32, String, Capsule)]) -> Vec<u8> {
    let mut c = Cdr::new();
    header(&mut c, nanos, "map");
    c.len(actors.len());
    for (a, (id, class, (r, h))) in actors.iter().zip(info) {
        header(&mut c, nanos, "map");
        c.len(1);
        c.string(class).f64(1.0);
        pose(&mut c, &a.pose, h / 2.0);
        c.f64_array(&[0.0; 36]);
        pose(&mut c, &a.pose, h / 2.0);
        c.f64(2.0 * r).f64(2.0 * r).f64(*h);
        c.string(&id.to_string());
    }
    c.finish()
}

/// Each actor's capsule as a cylinder marker (namespace `actors`, id = instance id), and its
/// skeleton as line segments (namespace `skeletons`) when `skeletons[i]` has any: pairs of world
/// points, one pair per bone.
pub fn markers(
    nanos: u64,
    actors: &[ActorState],
    info: &[(u32, String, Capsule)],
    skeletons: &[Vec<[f64; 3]>],
) -> Vec<u8> {
    let lines: Vec<(u32, &Vec<[f64; 3]>)> = info
        .iter()
        .zip(skeletons)
        .filter(|(_, s)| !s.is_empty())
        .map(|(i, s)| (i.0, s))
        .collect();
    let mut c = Cdr::new();
    c.len(actors.len() + lines.len());
    let tail = |c: &mut Cdr, points: &[[f64; 3]]| {
        c.i32(0).u32(0);
        c.bool(false);
        c.len(points.len());
        for p in points {
            c.f64(p[0]).f64(p[1]).f64(p[2]);
        }
        c.len(0);
        c.string("").string("").bool(false);
    };
    for (a, (id, _, (r, h))) in actors.iter().zip(info) {
        header(&mut c, nanos, "map");
        c.string("actors").i32(*id as i32).i32(3).i32(0);
        pose(&mut c, &a.pose, h / 2.0);
        c.f64(2.0 * r).f64(2.0 * r).f64(*h);
        c.f32(0.4).f32(0.6).f32(0.8).f32(0.6);
        tail(&mut c, &[]);
    }
    for (id, points) in lines {
        header(&mut c, nanos, "map");
        c.string("skeletons").i32(id as i32).i32(5).i32(0);
        c.f64(0.0)
            .f64(0.0)
            .f64(0.0)
            .f64(0.0)
            .f64(0.0)
            .f64(0.0)
            .f64(1.0);
        c.f64(0.02).f64(0.0).f64(0.0);
        c.f32(1.0).f32(0.8).f32(0.1).f32(1.0);
        tail(&mut c, points);
    }
    c.finish()
}

/// Every actor's state.
pub fn actor_states(nanos: u64, actors: &[ActorState], ids: &[u32]) -> Vec<u8> {
    let mut c = Cdr::new();
    header(&mut c, nanos, "map");
    c.len(actors.len());
    for (a, id) in actors.iter().zip(ids) {
        let anim = a.animation();
        c.string(&a.name).u32(*id);
        pose(&mut c, &a.pose, 0.0);
        c.f64(a.speed);
        c.string(match anim.gait {
            Gait::Idle => "idle",
            Gait::Walk => "walk",
            Gait::Run => "run",
            Gait::Turn => "turn",
        });
        c.string(&anim.current.clip)
            .f64(anim.current.time)
            .bool(a.held);
        c.len(a.external.parts.len());
        for (name, t) in &a.external.parts {
            c.string(name);
            for v in t
                .translation
                .iter()
                .chain(&t.yaw_pitch_roll)
                .chain(&t.scale)
            {
                c.f64(*v);
            }
        }
    }
    c.finish()
}

/// Contacts that began in a step.
pub fn contacts(nanos: u64, contacts: &[Contact]) -> Vec<u8> {
    let mut c = Cdr::new();
    header(&mut c, nanos, "map");
    c.len(contacts.len());
    for k in contacts {
        c.string(&k.object).string(&k.other);
        for v in k.point {
            c.f64(v);
        }
    }
    c.finish()
}

/// `std_msgs/Bool`.
pub fn boolean(v: bool) -> Vec<u8> {
    let mut c = Cdr::new();
    c.bool(v);
    c.finish()
}
