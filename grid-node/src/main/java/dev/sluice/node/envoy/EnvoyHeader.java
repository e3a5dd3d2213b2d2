package dev.sluice.node.envoy;

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
  RATELIMIT("ratelimit"),
  /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset}. */
  X_RATELIMIT("x-ratelimit"),
  /** {@code Retry-After}, in whole seconds rounded up, when the answer is OVER_LIMIT. */
  RETRY_AFTER("retry-after");

  /** The names as the setting spells them, for messages. */
  public static final String NAMES =
      Arrays.stream(values()).map(EnvoyHeader::wireName).collect(Collectors.joining(", "));

  private final String wireName;

  EnvoyHeader(String wireName) {
    this.wireName = wireName;
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
