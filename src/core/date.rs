//! Calendar dates (`YYYY-MM-DD`) for price snapshots. The core never reads a
//! clock: "today" is always passed in by the caller.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: i32,
    pub month: u32,
    pub day: u32,
}

impl Date {
    /// Parses `YYYY-MM-DD`, rejecting impossible dates.
    pub fn parse(s: &str) -> Option<Date> {
        let s = s.trim();
        let mut it = s.split('-');
        let (y, m, d) = (it.next()?, it.next()?, it.next()?);
        if it.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
            return None;
        }
        let date = Date { year: y.parse().ok()?, month: m.parse().ok()?, day: d.parse().ok()? };
        let days_in_month = match date.month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if date.year % 4 == 0 && (date.year % 100 != 0 || date.year % 400 == 0) => 29,
            2 => 28,
            _ => return None,
        };
        (date.day >= 1 && date.day <= days_in_month && date.year >= 1970).then_some(date)
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    pub fn days_since_epoch(self) -> i64 {
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// Whole days from `self` to `later` (negative if `later` is earlier).
    pub fn days_until(self, later: Date) -> i64 {
        later.days_since_epoch() - self.days_since_epoch()
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl serde::Serialize for Date {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::Date;

    #[test]
    fn parses_and_counts_days() {
        let a = Date::parse("2026-03-21").unwrap();
        let b = Date::parse("2026-11-29").unwrap();
        assert_eq!(a.days_until(b), 253);
        assert_eq!(Date::parse("2024-02-29").map(|d| d.to_string()).as_deref(), Some("2024-02-29"));
        assert_eq!(Date::parse("2025-02-29"), None);
        assert_eq!(Date::parse("2025-13-01"), None);
        assert_eq!(Date::parse("25-01-01"), None);
        assert_eq!(Date::parse("1970-01-01").unwrap().days_since_epoch(), 0);
    }
}
