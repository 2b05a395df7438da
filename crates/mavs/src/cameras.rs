//! Cameras by MAVS model name (`sensors/camera/camera_models.h`) and MAVS camera files (the
//! `Input File` of a camera without a `Model`: `Pixels`, `FocalLength`,
//! `FocalPlaneDimensions`, `Distortion`, `Anti Aliasing`), as pinhole intrinsics.
//!
//! MAVS describes a camera by its pixel counts, its focal plane's size and its focal length
//! (metres), and casts pixel `i`'s ray through `(i − (n/2 − ½))` pixel widths from the axis:
//! so `fx = f·nx/width`, `cx = nx/2 − ½` with pixel centres on integers. Gamma, gain and
//! exposure have no counterpart in our renderer; path-traced models render as the plain ones.

use passerby_world::{CameraParams, Intrinsics};

/// MAVS camera models: name, pixels across and down, focal plane width and height, focal
/// length (metres).
const MODELS: [(&str, u32, u32, f64, f64, f64); 8] = [
    ("Flea3-4mm", 1280, 1024, 0.006784, 0.0054272, 0.004),
    ("XCD-V60", 640, 480, 0.0024, 0.0018, 0.0035),
    ("MachineVision", 224, 224, 0.0035, 0.0035, 0.0035),
    ("LowRes", 384, 384, 0.0035, 0.0035, 0.0035),
    ("HD1080", 1620, 1080, 0.0225, 0.015, 0.009),
    ("Phantom4Camera", 1216, 912, 0.02032, 0.01524, 0.028),
    ("UavCameraLowRes", 684, 456, 0.05568, 0.03712, 0.035),
    ("Sf3325", 1928, 1208, 0.005784, 0.003624, 0.005),
];

/// Names of the camera models defined here.
pub fn model_names() -> Vec<&'static str> {
    MODELS.iter().map(|m| m.0).collect()
}

/// MAVS's camera description: pixels, focal plane size and focal length in metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FocalPlane {
    /// Pixels across and down.
    pub pixels: (u32, u32),
    /// Focal plane width and height, metres.
    pub size: (f64, f64),
    /// Metres.
    pub focal_length: f64,
}

impl Default for FocalPlane {
    /// MAVS's `Camera()` defaults: 512 x 512 pixels, 3.5 mm plane and focal length.
    fn default() -> Self {
        FocalPlane {
            pixels: (512, 512),
            size: (0.0035, 0.0035),
            focal_length: 0.0035,
        }
    }
}

impl FocalPlane {
    /// Pinhole intrinsics: focal lengths in pixels, principal point at the image centre.
    pub fn intrinsics(&self) -> Intrinsics {
        let (nx, ny) = self.pixels;
        Intrinsics {
            ncols: nx,
            nrows: ny,
            cx: f64::from(nx) / 2.0 - 0.5,
            cy: f64::from(ny) / 2.0 - 0.5,
            fx: self.focal_length * f64::from(nx) / self.size.0,
            fy: self.focal_length * f64::from(ny) / self.size.1,
            ..Intrinsics::default()
        }
    }
}

/// The camera of MAVS model `name`, if there is one.
pub fn camera_model(name: &str) -> Option<CameraParams> {
    let &(_, nx, ny, w, h, f) = MODELS.iter().find(|m| m.0 == name)?;
    let plane = FocalPlane {
        pixels: (nx, ny),
        size: (w, h),
        focal_length: f,
    };
    Some(CameraParams {
        intrinsics: plane.intrinsics(),
        ..CameraParams::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_give_mavss_field_of_view() {
        // The XCD-V60: 2.4 mm across at 3.5 mm, 640 pixels: fx = 3.5 / 2.4 · 640.
        let c = camera_model("XCD-V60").unwrap().intrinsics;
        assert_eq!((c.ncols, c.nrows), (640, 480));
        assert!((c.fx - 933.333_333).abs() < 1e-3 && (c.fy - 933.333_333).abs() < 1e-3);
        assert_eq!((c.cx, c.cy), (319.5, 239.5));
        // Half the horizontal field of view is atan(1.2 / 3.5).
        let half = ((c.cx + 0.5) / c.fx).atan().to_degrees();
        assert!((half - (1.2f64 / 3.5).atan().to_degrees()).abs() < 1e-9);
        assert!(camera_model("MachineVision").is_some());
        assert!(camera_model("Nikon").is_none());
    }
}
