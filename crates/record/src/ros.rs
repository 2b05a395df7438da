//! The ROS 2 messages Passerby writes: their definitions (`ros2msg` text, dependencies appended
//! the way ROS 2 bag writers do, so readers like `rosbags` and Foxglove decode them without a ROS
//! install) and their CDR encoders.

use crate::cdr::Cdr;

/// A message type: its name (`sensor_msgs/msg/PointCloud2`) and full definition.
#[derive(Clone, Copy, Debug)]
pub struct MsgType {
    /// `package/msg/Name`.
    pub name: &'static str,
    /// The definition with its dependencies.
    pub definition: &'static str,
}

macro_rules! deps {
    ($main:expr $(, $dep:expr)*) => {
        concat!($main $(, "\n================================================================================\n", $dep)*)
    };
}
pub(crate) use deps;

/// `rosgraph_msgs/msg/Clock`.
pub const CLOCK: MsgType = MsgType {
    name: "rosgraph_msgs/msg/Clock",
    definition: deps!(
        "builtin_interfaces/Time clock\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"
    ),
};

/// `tf2_msgs/msg/TFMessage`.
pub const TF: MsgType = MsgType {
    name: "tf2_msgs/msg/TFMessage",
    definition: deps!(
        "geometry_msgs/TransformStamped[] transforms\n",
        "MSG: geometry_msgs/TransformStamped\nstd_msgs/Header header\nstring child_frame_id\nTransform transform\n",
        "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        "MSG: geometry_msgs/Transform\nVector3 translation\nQuaternion rotation\n",
        "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n",
        "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n"
    ),
};

/// `sensor_msgs/msg/PointCloud2`.
pub const POINT_CLOUD2: MsgType = MsgType {
    name: "sensor_msgs/msg/PointCloud2",
    definition: deps!(
        "std_msgs/Header header\nuint32 height\nuint32 width\nPointField[] fields\nbool is_bigendian\nuint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense\n",
        "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        "MSG: sensor_msgs/PointField\nuint8 INT8 = 1\nuint8 UINT8 = 2\nuint8 INT16 = 3\nuint8 UINT16 = 4\nuint8 INT32 = 5\nuint8 UINT32 = 6\nuint8 FLOAT32 = 7\nuint8 FLOAT64 = 8\nstring name\nuint32 offset\nuint8 datatype\nuint32 count\n"
    ),
};

/// `sensor_msgs/msg/LaserScan`.
pub const LASER_SCAN: MsgType = MsgType {
    name: "sensor_msgs/msg/LaserScan",
    definition: deps!(
        "std_msgs/Header header\nfloat32 angle_min\nfloat32 angle_max\nfloat32 angle_increment\nfloat32 time_increment\nfloat32 scan_time\nfloat32 range_min\nfloat32 range_max\nfloat32[] ranges\nfloat32[] intensities\n",
        "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"
    ),
};

/// `sensor_msgs/msg/Imu`.
pub const IMU: MsgType = MsgType {
    name: "sensor_msgs/msg/Imu",
    definition: deps!(
        "std_msgs/Header header\ngeometry_msgs/Quaternion orientation\nfloat64[9] orientation_covariance\ngeometry_msgs/Vector3 angular_velocity\nfloat64[9] angular_velocity_covariance\ngeometry_msgs/Vector3 linear_acceleration\nfloat64[9] linear_acceleration_covariance\n",
        "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n",
        "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n"
    ),
};

/// `sensor_msgs/msg/NavSatFix`.
pub const NAV_SAT_FIX: MsgType = MsgType {
    name: "sensor_msgs/msg/NavSatFix",
    definition: deps!(
        "std_msgs/Header header\nNavSatStatus status\nfloat64 latitude\nfloat64 longitude\nfloat64 altitude\nfloat64[9] position_covariance\nuint8 COVARIANCE_TYPE_UNKNOWN = 0\nuint8 COVARIANCE_TYPE_APPROXIMATED = 1\nuint8 COVARIANCE_TYPE_DIAGONAL_KNOWN = 2\nuint8 COVARIANCE_TYPE_KNOWN = 3\nuint8 position_covariance_type\n",
        "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        "MSG: sensor_msgs/NavSatStatus\nint8 STATUS_NO_FIX = -1\nint8 STATUS_FIX = 0\nint8 STATUS_SBAS_FIX = 1\nint8 STATUS_GBAS_FIX = 2\nint8 status\nuint16 SERVICE_GPS = 1\nuint16 SERVICE_GLONASS = 2\nuint16 SERVICE_COMPASS = 4\nuint16 SERVICE_GALILEO = 8\nuint16 service\n"
    ),
};

/// `nav_msgs/msg/Odometry`.
pub const ODOMETRY: MsgType = MsgType {
    name: "nav_msgs/msg/Odometry",
    definition: deps!(
        "std_msgs/Header header\nstring child_frame_id\ngeometry_msgs/PoseWithCovariance pose\ngeometry_msgs/TwistWithCovariance twist\n",
        "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        "MSG: geometry_msgs/PoseWithCovariance\nPose pose\nfloat64[36] covariance\n",
        "MSG: geometry_msgs/Pose\nPoint position\nQuaternion orientation\n",
        "MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n",
        "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n",
        "MSG: geometry_msgs/TwistWithCovariance\nTwist twist\nfloat64[36] covariance\n",
        "MSG: geometry_msgs/Twist\nVector3 linear\nVector3 angular\n",
        "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n"
    ),
};

/// Simulated seconds as a ROS time (from the recording's epoch offset, whole seconds and
/// nanoseconds, rounded to the nanosecond).
pub fn time_parts(nanos: u64) -> (i32, u32) {
    (
        (nanos / 1_000_000_000) as i32,
        (nanos % 1_000_000_000) as u32,
    )
}

/// `std_msgs/Header`.
pub fn header(c: &mut Cdr, nanos: u64, frame: &str) {
    let (sec, nanosec) = time_parts(nanos);
    c.i32(sec).u32(nanosec).string(frame);
}

/// A rigid transform: translation and quaternion (x, y, z, w).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Metres.
    pub translation: [f64; 3],
    /// Unit quaternion, x y z w.
    pub rotation: [f64; 4],
}

/// `tf2_msgs/TFMessage` of `(parent, child, transform)` at one time.
pub fn tf_message(nanos: u64, transforms: &[(String, String, Transform)]) -> Vec<u8> {
    let mut c = Cdr::new();
    c.len(transforms.len());
    for (parent, child, t) in transforms {
        header(&mut c, nanos, parent);
        c.string(child);
        for v in t.translation {
            c.f64(v);
        }
        for v in t.rotation {
            c.f64(v);
        }
    }
    c.finish()
}

/// `rosgraph_msgs/Clock`.
pub fn clock(nanos: u64) -> Vec<u8> {
    let mut c = Cdr::new();
    let (sec, nanosec) = time_parts(nanos);
    c.i32(sec).u32(nanosec);
    c.finish()
}

/// `sensor_msgs/msg/Image`.
pub const IMAGE: MsgType = MsgType {
    name: "sensor_msgs/msg/Image",
    definition: deps!(
        "std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\nuint32 step\nuint8[] data\n",
        "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"
    ),
};

/// `sensor_msgs/msg/CameraInfo`.
pub const CAMERA_INFO: MsgType = MsgType {
    name: "sensor_msgs/msg/CameraInfo",
    definition: deps!(
        "std_msgs/Header header\nuint32 height\nuint32 width\nstring distortion_model\nfloat64[] d\nfloat64[9] k\nfloat64[9] r\nfloat64[12] p\nuint32 binning_x\nuint32 binning_y\nRegionOfInterest roi\n",
        "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n",
        "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        "MSG: sensor_msgs/RegionOfInterest\nuint32 x_offset\nuint32 y_offset\nuint32 height\nuint32 width\nbool do_rectify\n"
    ),
};

/// `sensor_msgs/Image` of `width x height` pixels, rows back to back, each value of `pixels`
/// written as `to_bytes` gives it (little endian for multi-byte encodings).
pub fn image<T: Copy, const N: usize>(
    nanos: u64,
    frame: &str,
    (width, height): (u32, u32),
    encoding: &str,
    pixels: &[T],
    to_bytes: fn(T) -> [u8; N],
) -> Vec<u8> {
    let mut c = Cdr::with_capacity(128 + pixels.len() * N);
    header(&mut c, nanos, frame);
    c.u32(height).u32(width).string(encoding).u8(0);
    let step = pixels.len() as u32 * N as u32 / height.max(1);
    c.u32(step).records(pixels.len(), N, |k, r| {
        r.copy_from_slice(&to_bytes(pixels[k]))
    });
    c.finish()
}

/// As [`image`], for pixels already in their bytes (`rgb8`): copied in one go.
pub fn image_of_bytes(
    nanos: u64,
    frame: &str,
    (width, height): (u32, u32),
    encoding: &str,
    data: &[u8],
) -> Vec<u8> {
    let mut c = Cdr::with_capacity(128 + data.len());
    header(&mut c, nanos, frame);
    c.u32(height).u32(width).string(encoding).u8(0);
    let step = data.len() as u32 / height.max(1);
    c.u32(step).bytes(data);
    c.finish()
}
