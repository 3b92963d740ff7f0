/// GPS counts weeks in a 10-bit field that wraps every 1024 weeks (last on 2019-04-06). Receivers whose
/// firmware predates a wrap report dates 19.6 years in the past (Telit HE910 in gpsd's captures says
/// 1999-08-22 in 2019). A date can be corrected only against something known: here, a date before which
/// no live fix can be (ridegate's release date), moved forward by whole 1024-week eras.
public enum GPSWeekRollover {
    public static let era = 1024 * 7

    /// Returns the date moved forward by whole eras until it is not before `notBefore`, and how many eras.
    public static func corrected(_ date: CivilDate, notBefore: CivilDate) -> (date: CivilDate, eras: Int) {
        var days = date.daysSince1970
        var eras = 0
        while days < notBefore.daysSince1970 - 1, eras < 4 {
            days += era
            eras += 1
        }
        return (CivilDate(daysSince1970: days), eras)
    }

    /// No live fix can be older than this release of ridegate.
    public static let releaseFloor = CivilDate(year: 2026, month: 1, day: 1)
}
