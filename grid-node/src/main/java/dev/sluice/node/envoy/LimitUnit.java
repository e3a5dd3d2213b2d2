package dev.sluice.node.envoy;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The units of a limit in envoyproxy/ratelimit's files ({@code unit: minute}) and in Envoy's
 * messages, with the window each one counts over. Their lengths are the peer's: a month is 30 days
 * and a year 365, whatever the calendar says.
 */
enum LimitUnit {
  SECOND(Duration.ofSeconds(1), RateLimitResponse.RateLimit.Unit.SECOND),
  MINUTE(Duration.ofMinutes(1), RateLimitResponse.RateLimit.Unit.MINUTE),
  HOUR(Duration.ofHours(1), RateLimitResponse.RateLimit.Unit.HOUR),
  DAY(Duration.ofDays(1), RateLimitResponse.RateLimit.Unit.DAY),
  WEEK(Duration.ofDays(7), RateLimitResponse.RateLimit.Unit.WEEK),
  MONTH(Duration.ofDays(30), RateLimitResponse.RateLimit.Unit.MONTH),
  YEAR(Duration.ofDays(365), RateLimitResponse.RateLimit.Unit.YEAR);

  /** The units as the files spell them, for messages. */
  static final String NAMES =
      Arrays.stream(values()).map(LimitUnit::fileName).collect(Collectors.joining(", "));

  private final Duration window;
  private final RateLimitResponse.RateLimit.Unit proto;

  LimitUnit(Duration window, RateLimitResponse.RateLimit.Unit proto) {
    this.window = window;
    this.proto = proto;
  }

  /** How long one unit is: the window its limit counts over unless the file names another. */
  Duration window() {
    return window;
  }

  /** The unit in a {@code DescriptorStatus.current_limit}. */
  RateLimitResponse.RateLimit.Unit proto() {
    return proto;
  }

  /** {@code minute}. */
  String fileName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The unit a file names, in any case ({@code minute}, {@code MINUTE}), as the peer reads it. */
  static Optional<LimitUnit> fromFile(String name) {
    for (LimitUnit unit : values()) {
      if (unit.name().equalsIgnoreCase(name)) {
        return Optional.of(unit);
      }
    }
    return Optional.empty();
  }

  /** The unit of a limit Envoy sends in a descriptor ({@code limit} override); it has no week. */
  static Optional<LimitUnit> fromOverride(RateLimitUnit unit) {
    return switch (unit) {
      case SECOND -> Optional.of(SECOND);
      case MINUTE -> Optional.of(MINUTE);
      case HOUR -> Optional.of(HOUR);
      case DAY -> Optional.of(DAY);
      case MONTH -> Optional.of(MONTH);
      case YEAR -> Optional.of(YEAR);
      case UNKNOWN, UNRECOGNIZED -> Optional.empty();
    };
  }
}
