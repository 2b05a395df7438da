//! MVSim's PID controller (`PID_Controller.cpp`): proportional, integral and an optionally
//! filtered derivative, output saturation with optional back-calculation anti-windup, a
//! feed-forward term, and an optional first- or second-order filter of the reference.

/// Gains and options, as `<controller>` parameters name them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PidGains {
    /// Proportional gain (`KP`).
    pub kp: f64,
    /// Integral gain (`KI`).
    pub ki: f64,
    /// Derivative gain (`KD`).
    pub kd: f64,
    /// Derivative filter coefficient (`N`); 0 differentiates the error directly.
    pub n: f64,
    /// Output saturation (`max_torque`); 0 or less: none.
    pub max_out: f64,
    /// Back-calculation anti-windup (`enable_antiwindup`).
    pub antiwindup: bool,
    /// Low-pass filter the reference (`enable_reference_filter`).
    pub reference_filter: bool,
    /// Its time constant, seconds (`reference_filter_tau`).
    pub reference_filter_tau: f64,
    /// One or two stages (`reference_filter_order`).
    pub reference_filter_order: u32,
}

/// A PID's state.
#[derive(Clone, Debug, Default)]
pub struct Pid {
    integral: f64,
    derivative: f64,
    previous_error: f64,
    first_call: bool,
    reference_1: f64,
    reference_2: f64,
}

impl Pid {
    /// A PID at rest.
    pub fn new() -> Pid {
        Pid {
            first_call: true,
            ..Pid::default()
        }
    }

    /// The reference through the optional low-pass filter (exponential, one or two stages).
    pub fn filter_reference(&mut self, g: &PidGains, setpoint: f64, dt: f64) -> f64 {
        if !g.reference_filter || dt <= 0.0 {
            return setpoint;
        }
        let a = (-dt / g.reference_filter_tau.max(1e-6)).exp();
        self.reference_1 = a * self.reference_1 + (1.0 - a) * setpoint;
        if g.reference_filter_order <= 1 {
            return self.reference_1;
        }
        self.reference_2 = a * self.reference_2 + (1.0 - a) * self.reference_1;
        self.reference_2
    }

    /// The output for this step's error.
    pub fn compute(&mut self, g: &PidGains, error: f64, dt: f64, feedforward: f64) -> f64 {
        let dt = if dt <= 0.0 { 1e-3 } else { dt };
        let p = g.kp * error;
        self.integral += g.ki * error * dt;
        let d = if g.n > 0.0 {
            self.derivative += dt * g.n * (g.kd * error - self.derivative);
            self.derivative
        } else if !self.first_call {
            g.kd * (error - self.previous_error) / dt
        } else {
            0.0
        };
        self.previous_error = error;
        self.first_call = false;
        let unsaturated = p + self.integral + d + feedforward;
        let saturate = |u: f64| {
            if g.max_out > 0.0 {
                u.clamp(-g.max_out, g.max_out)
            } else {
                u
            }
        };
        let saturated = saturate(unsaturated);
        if g.antiwindup && g.kp > 1e-12 && g.max_out > 0.0 {
            // Back-calculation: bleed the integral by what saturation cut off.
            self.integral += g.ki / g.kp * (saturated - unsaturated) * dt;
            return saturate(p + self.integral + d + feedforward);
        }
        saturated
    }

    /// Back to rest (integral, derivative and filters cleared).
    pub fn reset(&mut self) {
        *self = Pid::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gains() -> PidGains {
        PidGains {
            kp: 2.0,
            ki: 1.0,
            kd: 0.0,
            n: 0.0,
            max_out: 10.0,
            antiwindup: false,
            reference_filter: false,
            reference_filter_tau: 0.1,
            reference_filter_order: 1,
        }
    }

    #[test]
    fn proportional_and_integral_add_up_and_saturate() {
        let g = gains();
        let mut pid = Pid::new();
        // P = 2, I = 1 * 1 * 0.5.
        assert_eq!(pid.compute(&g, 1.0, 0.5, 0.0), 2.5);
        assert_eq!(pid.compute(&g, 100.0, 0.5, 0.0), 10.0);
    }

    #[test]
    fn antiwindup_keeps_the_integral_from_running_away() {
        let mut g = gains();
        let (mut free, mut guarded) = (Pid::new(), Pid::new());
        for _ in 0..100 {
            free.compute(&g, 20.0, 0.1, 0.0);
        }
        g.antiwindup = true;
        for _ in 0..100 {
            guarded.compute(&g, 20.0, 0.1, 0.0);
        }
        assert!(guarded.integral < free.integral / 2.0);
    }

    #[test]
    fn a_second_order_reference_filter_lags_a_first_order_one() {
        let mut g = gains();
        g.reference_filter = true;
        let (mut first, mut second) = (Pid::new(), Pid::new());
        let a = first.filter_reference(&g, 1.0, 0.05);
        g.reference_filter_order = 2;
        let b = second.filter_reference(&g, 1.0, 0.05);
        assert!(b < a && a < 1.0 && b > 0.0);
    }
}
