"""A stand-in for the `rfc3339` package, which Debian does not ship: the SDK formats UTC times."""
from datetime import date, datetime, timezone


def rfc3339(value, utc=False, use_system_timezone=True):
    if not isinstance(value, datetime) and isinstance(value, date):
        value = datetime(value.year, value.month, value.day)
    if utc or value.tzinfo is None:
        value = (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    return value.isoformat(timespec="seconds")
