//! Match statistics in cutechess-cli's terms: score, Elo difference with a
//! 95% interval, likelihood of superiority, and the sequential probability
//! ratio test that decides "is A at least `elo1` better, or at most `elo0`?"
//! with bounded error rates as games come in.
//!
//! [`Tally`] is the one implementation behind both the match runner's
//! summary and self-play's, so the two report the same numbers.

use std::fmt;

/// Wins, draws and losses from the first engine's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games the first engine won.
    pub wins: u32,
    /// Games the first engine lost.
    pub losses: u32,
    /// Drawn games.
    pub draws: u32,
}

impl Tally {
    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// The first engine's score fraction (0.5 with no games).
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games() as f64
    }

    /// Adds a result given as the first engine's score: 1, 0.5 or 0.
    pub fn add(&mut self, score: f64) {
        if score > 0.75 {
            self.wins += 1;
        } else if score < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// The likelihood of superiority: the probability that the first
    /// engine is the stronger, from wins and losses (draws say nothing).
    pub fn los(&self) -> f64 {
        let decisive = (self.wins + self.losses) as f64;
        if decisive == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((self.wins as f64 - self.losses as f64) / (2.0 * decisive).sqrt()))
    }

    /// The per-game variance of the first engine's results (1, 0.5 or 0)
    /// around its score; 0 with no games.
    pub fn variance(&self) -> f64 {
        if self.games() == 0 {
            return 0.0;
        }
        let score = self.score();
        (self.wins as f64 * (1.0 - score).powi(2)
            + self.draws as f64 * (0.5 - score).powi(2)
            + self.losses as f64 * score.powi(2))
            / self.games() as f64
    }

    /// The first engine's Elo difference and its 95% interval, as
    /// `(elo, low, high)`, from the score's normal approximation (the
    /// per-game variance of the observed results). With no games the
    /// interval is unbounded.
    pub fn elo_interval(&self) -> (f64, f64, f64) {
        let games = self.games() as f64;
        if games == 0.0 {
            return (0.0, f64::NEG_INFINITY, f64::INFINITY);
        }
        let score = self.score();
        let margin = 1.96 * (self.variance() / games).sqrt();
        let elo = |score: f64| -> f64 {
            let clamped = score.clamp(1e-6, 1.0 - 1e-6);
            -400.0 * (1.0 / clamped - 1.0).log10()
        };
        (elo(score), elo(score - margin), elo(score + margin))
    }

    /// `Score of A vs B: W - L - D  [score]  N`, as cutechess-cli prints it.
    pub fn score_line(&self, first: &str, second: &str) -> String {
        format!(
            "Score of {first} vs {second}: {} - {} - {}  [{:.3}]  {}",
            self.wins,
            self.losses,
            self.draws,
            self.score(),
            self.games()
        )
    }

    /// `Elo difference: X +/- Y, LOS: Z %, DrawRatio: D %`, with what
    /// cutechess-cli prints where the normal approximation gives no number:
    /// `inf` (`-inf`) for a clean sweep (every game lost), and `nan` for the
    /// margin while every game has had the same result (the observed
    /// variance is zero, so there is no interval) and for anything with no
    /// games. An even score is `0.0`, never `-0.0`.
    pub fn elo_line(&self) -> String {
        let games = self.games() as f64;
        let score = self.score();
        let elo = if games == 0.0 {
            f64::NAN
        } else {
            // Adding zero turns -0.0 (all draws) into 0.0.
            -400.0 * (1.0 / score - 1.0).log10() + 0.0
        };
        let margin = if games == 0.0 || self.variance() <= 1e-12 {
            f64::NAN
        } else {
            let (_, low, high) = self.elo_interval();
            (high - low) / 2.0
        };
        let number = |value: f64| {
            if value.is_nan() {
                "nan".to_string()
            } else if value.is_finite() {
                format!("{value:.1}")
            } else if value > 0.0 {
                "inf".to_string()
            } else {
                "-inf".to_string()
            }
        };
        let draw_ratio = if self.games() == 0 {
            0.0
        } else {
            100.0 * self.draws as f64 / self.games() as f64
        };
        format!(
            "Elo difference: {} +/- {}, LOS: {:.1} %, DrawRatio: {:.1} %",
            number(elo),
            number(margin),
            100.0 * self.los(),
            draw_ratio
        )
    }
}

/// The error function (Abramowitz and Stegun 7.1.26, error below 1.5e-7).
fn erf(x: f64) -> f64 {
    let sign = x.signum();
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let polynomial = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - polynomial * (-x * x).exp())
}

/// The expected score of a player `elo` points stronger.
fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// A sequential probability ratio test: H0 "the Elo difference is `elo0`"
/// against H1 "it is `elo1`", with error rates `alpha` (accepting H1 when H0
/// holds) and `beta` (accepting H0 when H1 holds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo difference under H0.
    pub elo0: f64,
    /// Elo difference under H1.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
}

/// What the test says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// Keep playing.
    Continue,
    /// H0 accepted: not `elo1` better.
    H0,
    /// H1 accepted: `elo1` better.
    H1,
}

impl Sprt {
    /// Reads `elo0=0 elo1=5 alpha=0.05 beta=0.05` (any order; all four needed).
    ///
    /// # Errors
    /// Names the bad or missing field.
    pub fn parse<S: AsRef<str>>(fields: &[S]) -> Result<Sprt, String> {
        let mut values = [None; 4];
        let keys = ["elo0", "elo1", "alpha", "beta"];
        for field in fields {
            let field = field.as_ref();
            let (key, value) = field
                .split_once('=')
                .ok_or_else(|| format!("--sprt '{field}': expected key=value"))?;
            let index = keys.iter().position(|known| *known == key).ok_or_else(|| {
                format!("--sprt '{key}': expected one of elo0, elo1, alpha, beta")
            })?;
            let number: f64 = value
                .parse()
                .ok()
                .filter(|number: &f64| number.is_finite())
                .ok_or_else(|| format!("--sprt {key}={value}: expected a number"))?;
            values[index] = Some(number);
        }
        let get = |index: usize| {
            values[index].ok_or_else(|| format!("--sprt: {}=... is missing", keys[index]))
        };
        let sprt = Sprt {
            elo0: get(0)?,
            elo1: get(1)?,
            alpha: get(2)?,
            beta: get(3)?,
        };
        if sprt.elo1 <= sprt.elo0 {
            return Err("--sprt: expected elo1 greater than elo0".to_string());
        }
        for (name, rate) in [("alpha", sprt.alpha), ("beta", sprt.beta)] {
            if !(rate > 0.0 && rate < 0.5) {
                return Err(format!(
                    "--sprt {name}={rate}: expected a rate between 0 and 0.5"
                ));
            }
        }
        Ok(sprt)
    }

    /// The lower and upper bounds of the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0, in the normal
    /// approximation of the generalised SPRT (the per-game variance is the
    /// observed one). It is 0 while every game has had the same result,
    /// because the variance is then unknown.
    pub fn llr(&self, tally: &Tally) -> f64 {
        let games = tally.games() as f64;
        if games == 0.0 {
            return 0.0;
        }
        let score = tally.score();
        let variance = tally.variance();
        if variance <= 1e-12 {
            return 0.0;
        }
        let score0 = expected_score(self.elo0);
        let score1 = expected_score(self.elo1);
        games * (score1 - score0) * (2.0 * score - score0 - score1) / (2.0 * variance)
    }

    /// The verdict for a tally.
    pub fn verdict(&self, tally: &Tally) -> SprtVerdict {
        let llr = self.llr(tally);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtVerdict::H1
        } else if llr <= lower {
            SprtVerdict::H0
        } else {
            SprtVerdict::Continue
        }
    }

    /// `SPRT: llr X (P%), lbound L, ubound U - <verdict>`, as cutechess-cli prints it.
    pub fn line(&self, tally: &Tally) -> String {
        let llr = self.llr(tally);
        let (lower, upper) = self.bounds();
        let percent = if llr >= 0.0 {
            100.0 * llr / upper
        } else {
            100.0 * llr / lower.abs()
        };
        let verdict = match self.verdict(tally) {
            SprtVerdict::H0 => "H0 was accepted",
            SprtVerdict::H1 => "H1 was accepted",
            SprtVerdict::Continue => "no decision",
        };
        format!(
            "SPRT: llr {llr:.3} ({percent:.1}%), lbound {lower:.2}, ubound {upper:.2} - {verdict}"
        )
    }
}

impl Sprt {
    /// The final SPRT line and verdict of a match that ended at `tally`,
    /// having stopped at `decided` (the tally where the verdict was
    /// reached), if it did. The verdict reached stands: the games that were
    /// under way when it came can move the ratio back inside the bounds,
    /// and a line saying "no decision" after a match stopped by its SPRT
    /// would misreport it.
    pub fn report(&self, tally: &Tally, decided: Option<Tally>) -> (String, SprtVerdict) {
        match decided {
            Some(decided) if decided != *tally => (
                format!(
                    "{} (at {} games; after all {}: llr {:.3})",
                    self.line(&decided),
                    decided.games(),
                    tally.games(),
                    self.llr(tally)
                ),
                self.verdict(&decided),
            ),
            _ => (self.line(tally), self.verdict(tally)),
        }
    }
}

impl fmt::Display for Sprt {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "elo0={} elo1={} alpha={} beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_and_elo_lines() {
        let tally = Tally {
            wins: 6,
            losses: 3,
            draws: 1,
        };
        assert_eq!(
            tally.score_line("A", "B"),
            "Score of A vs B: 6 - 3 - 1  [0.650]  10"
        );
        assert!(
            tally.elo_line().starts_with("Elo difference: 107.5 +/- "),
            "{}",
            tally.elo_line()
        );
        assert!(tally.los() > 0.8 && tally.los() < 0.9);
        assert!((erf(1.0) - 0.842_700_79).abs() < 1e-6);
    }

    #[test]
    fn the_verdict_that_stopped_a_match_stands() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 25.0,
            alpha: 0.05,
            beta: 0.05,
        };
        // A real case: H1 at 110-66-9, then a game under way was lost.
        let decided = Tally {
            wins: 110,
            losses: 66,
            draws: 9,
        };
        let ended = Tally {
            losses: 67,
            ..decided
        };
        assert_eq!(sprt.verdict(&decided), SprtVerdict::H1);
        assert_eq!(sprt.verdict(&ended), SprtVerdict::Continue);
        let (line, verdict) = sprt.report(&ended, Some(decided));
        assert_eq!(verdict, SprtVerdict::H1);
        assert!(
            line.contains("H1 was accepted (at 185 games; after all 186: llr 2.905)"),
            "{line}"
        );
        let (line, verdict) = sprt.report(&ended, None);
        assert_eq!(verdict, SprtVerdict::Continue);
        assert!(line.ends_with("no decision"), "{line}");
        assert_eq!(sprt.report(&decided, Some(decided)).0, sprt.line(&decided));
    }

    #[test]
    fn elo_lines_without_an_estimate_say_so() {
        let line = |wins, losses, draws| {
            Tally {
                wins,
                losses,
                draws,
            }
            .elo_line()
        };
        assert_eq!(
            line(6, 0, 0),
            "Elo difference: inf +/- nan, LOS: 99.3 %, DrawRatio: 0.0 %"
        );
        assert!(
            line(0, 3, 0).starts_with("Elo difference: -inf +/- nan, "),
            "{}",
            line(0, 3, 0)
        );
        assert_eq!(
            line(0, 0, 4),
            "Elo difference: 0.0 +/- nan, LOS: 50.0 %, DrawRatio: 100.0 %"
        );
        assert!(line(0, 0, 0).starts_with("Elo difference: nan +/- nan, "));
        // An even score with varied results has a real interval.
        let even = line(2, 2, 2);
        assert!(even.starts_with("Elo difference: 0.0 +/- "), "{even}");
        assert!(!even.contains("nan") && !even.contains("-0.0"), "{even}");
    }

    #[test]
    fn elo_of_an_even_score_is_zero() {
        let even = Tally {
            wins: 10,
            losses: 10,
            draws: 10,
        };
        let (elo, low, high) = even.elo_interval();
        assert!(elo.abs() < 1e-9);
        assert!(low < 0.0 && high > 0.0);
        let better = Tally {
            wins: 30,
            losses: 10,
            draws: 0,
        };
        assert!(better.elo_interval().0 > 150.0);
        let (_, low, high) = Tally::default().elo_interval();
        assert!(low.is_infinite() && high.is_infinite());
    }

    #[test]
    fn sprt_decides_clear_cases() {
        let sprt = Sprt::parse(&["elo0=0", "elo1=50", "alpha=0.05", "beta=0.05"]).unwrap();
        let (lower, upper) = sprt.bounds();
        assert!((lower + 2.944).abs() < 0.01 && (upper - 2.944).abs() < 0.01);
        let strong = Tally {
            wins: 80,
            losses: 20,
            draws: 0,
        };
        assert_eq!(sprt.verdict(&strong), SprtVerdict::H1);
        let weak = Tally {
            wins: 20,
            losses: 80,
            draws: 0,
        };
        assert_eq!(sprt.verdict(&weak), SprtVerdict::H0);
        let early = Tally {
            wins: 2,
            losses: 1,
            draws: 0,
        };
        assert_eq!(sprt.verdict(&early), SprtVerdict::Continue);
        assert!(sprt.line(&strong).ends_with("H1 was accepted"));
        assert!(Sprt::parse(&["elo0=5", "elo1=0", "alpha=0.05", "beta=0.05"]).is_err());
        assert!(Sprt::parse(&["elo0=0", "elo1=5", "alpha=0.05"]).is_err());
        assert!(Sprt::parse(&["elo0=0", "elo1=5", "alpha=x", "beta=0.05"]).is_err());
    }
}
