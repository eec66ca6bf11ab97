//! Today's date for the CLI: the core reads no clock, so the CLI passes
//! the date in.

use whichgpu::core::catalog::Date;

/// `--today`'s date where given, else the system clock's (UTC).
pub fn today(arg: Option<&str>) -> Date {
    // The core reads no clock; the CLI passes today's date in.
    if let Some(d) = arg.and_then(Date::parse) {
        return d;
    }
    let secs =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let days = (secs / 86_400) as i64;
    // civil_from_days (Howard Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = (yoe + era * 400 + i64::from(m <= 2)) as i32;
    Date { year: y, month: m, day: d }
}
