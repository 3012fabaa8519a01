//! The optimiser: Adam's moments and step, and the cosine learning-rate schedule over the
//! epochs of a run.

/// Adam's moments, kept in checkpoints so a run resumes where it stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    pub m: Vec<f32>,
    pub s: Vec<f32>,
    pub steps: u64,
}

impl Adam {
    pub fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            s: vec![0.0; n],
            steps: 0,
        }
    }

    /// One step of Adam; with `decay` above zero, AdamW's: each weight first shrinks by
    /// `lr * decay` of itself, apart from the gradient's moments.
    pub fn step(&mut self, params: &mut [f32], grad: &[f32], lr: f32, decay: f32) {
        if decay > 0.0 {
            let keep = 1.0 - lr * decay;
            for p in params.iter_mut() {
                *p *= keep;
            }
        }
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.steps = self.steps.saturating_add(1);
        let c1 = 1.0 - B1.powi(self.steps.min(100_000) as i32);
        let c2 = 1.0 - B2.powi(self.steps.min(100_000) as i32);
        for i in 0..params.len() {
            self.m[i] = B1 * self.m[i] + (1.0 - B1) * grad[i];
            self.s[i] = B2 * self.s[i] + (1.0 - B2) * grad[i] * grad[i];
            params[i] -= lr * (self.m[i] / c1) / ((self.s[i] / c2).sqrt() + 1e-8);
        }
    }
}

/// The learning rate of `epoch` (0-based) of `epochs`: cosine from `lr` down to lr / 100.
pub fn learning_rate(lr: f32, epoch: usize, epochs: usize) -> f32 {
    let t = epoch as f32 / epochs.max(1) as f32;
    let low = lr / 100.0;
    low + 0.5 * (lr - low) * (1.0 + (std::f32::consts::PI * t).cos())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_learning_rate_falls_from_lr_halfway_to_the_floor() {
        assert!((learning_rate(0.01, 0, 10) - 0.01).abs() < 1e-8);
        // Halfway, the mean of lr and lr / 100.
        assert!((learning_rate(0.01, 5, 10) - 0.00505).abs() < 1e-7);
        assert!(learning_rate(0.01, 9, 10) < learning_rate(0.01, 8, 10));
        assert!(learning_rate(0.01, 9, 10) > 0.0001);
    }

    #[test]
    fn the_first_adam_step_moves_each_weight_by_lr_against_its_gradient() {
        // Bias correction makes the first step lr x sign(gradient), whatever its size.
        let mut adam = Adam::new(3);
        let mut params = [1.0f32, 1.0, 1.0];
        adam.step(&mut params, &[0.5, -2.0, 0.0], 0.1, 0.0);
        assert!((params[0] - 0.9).abs() < 1e-6 && (params[1] - 1.1).abs() < 1e-6);
        assert_eq!(params[2], 1.0);
        assert_eq!(adam.steps, 1);
    }

    /// A checkpoint's step count is read from the file: at its largest, the next step
    /// neither overflows nor turns the weights into NaN.
    #[test]
    fn a_step_after_the_largest_step_count_keeps_the_weights_finite() {
        let mut adam = Adam::new(2);
        adam.steps = u64::MAX;
        let mut params = [1.0f32, -1.0];
        adam.step(&mut params, &[0.5, -0.5], 0.1, 0.0);
        assert!(params.iter().all(|p| p.is_finite()), "{params:?}");
        assert_eq!(adam.steps, u64::MAX);
    }

    #[test]
    fn adamw_shrinks_each_weight_by_lr_times_decay_before_the_adam_step() {
        let (mut plain, mut decayed) = (Adam::new(2), Adam::new(2));
        let mut a = [2.0f32, -4.0];
        let mut b = a;
        plain.step(&mut a, &[1.0, 0.0], 0.1, 0.0);
        decayed.step(&mut b, &[1.0, 0.0], 0.1, 0.5);
        // Shrunk by 1 - 0.1 x 0.5 = 0.95 first: 2 -> 1.9 -> 1.8, and -4 -> -3.8 (no gradient).
        assert!((a[0] - 1.9).abs() < 1e-6 && a[1] == -4.0);
        assert!((b[0] - 1.8).abs() < 1e-6 && (b[1] + 3.8).abs() < 1e-6);
    }
}
