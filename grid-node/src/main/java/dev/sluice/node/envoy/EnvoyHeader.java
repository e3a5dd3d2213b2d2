package dev.sluice.node.envoy;

import dev.sluice.core.headers.RateLimitHeaders.Family;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The families of headers the Envoy front end can ask Envoy to add to its response ({@code
 * response_headers_to_add}), chosen with the {@code envoyHeaders} setting.
 */
public enum EnvoyHeader {
  /**
   * The IETF httpapi draft's {@code RateLimit-Policy} and {@code RateLimit}, for the limit closest
   * to denying the request.
   */
  RATELIMIT("ratelimit", Family.RATELIMIT),
  /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset}. */
  X_RATELIMIT("x-ratelimit", Family.X_RATELIMIT),
  /** {@code Retry-After}, in whole seconds rounded up, when the answer is OVER_LIMIT. */
  RETRY_AFTER("retry-after", Family.RETRY_AFTER);

  /** The names as the setting spells them, for messages. */
  public static final String NAMES =
      Arrays.stream(values()).map(EnvoyHeader::wireName).collect(Collectors.joining(", "));

  private final String wireName;
  private final Family family;

  EnvoyHeader(String wireName, Family family) {
    this.wireName = wireName;
    this.family = family;
  }

  /** The headers of this family, as every Sluice surface writes them. */
  Family family() {
    return family;
  }

  /** {@code x-ratelimit}. */
  public String wireName() {
    return wireName;
  }

  /** The family the setting names, in any case. */
  public static Optional<EnvoyHeader> fromWireName(String name) {
    return Arrays.stream(values())
        .filter(h -> h.wireName.equalsIgnoreCase(name.trim()))
        .findFirst();
  }
}
