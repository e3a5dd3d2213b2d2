package dev.sluice.node.envoy;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;

/**
 * What a {@code RateLimitRequest} must be before anything is counted: a domain and at least one
 * descriptor (as the peer requires), at most {@value ShouldRateLimit#MAX_DESCRIPTORS} descriptors
 * of at most {@value ShouldRateLimit#MAX_ENTRIES} entries (the peer has no bound; Envoy sends a
 * handful), and text that is well-formed Unicode (protobuf's gRPC decoding ensures it; protobuf
 * JSON, on {@code POST /json}, lets {@code "\ud800"} through). An empty key or value, or a
 * descriptor without entries, is valid: it matches no limit, as in the peer.
 */
final class RequestChecks {
  private RequestChecks() {}

  /**
   * @throws InvalidRequestException naming the field at fault
   */
  static void check(RateLimitRequest request) {
    if (request.getDomain().isEmpty()) {
      throw new InvalidRequestException("domain", "must not be empty");
    }
    wellFormed("domain", request.getDomain());
    int descriptors = request.getDescriptorsCount();
    if (descriptors == 0) {
      throw new InvalidRequestException(
          "descriptors", "must not be empty: give at least one descriptor to check");
    }
    if (descriptors > ShouldRateLimit.MAX_DESCRIPTORS) {
      throw new InvalidRequestException(
          "descriptors",
          "at most " + ShouldRateLimit.MAX_DESCRIPTORS + " per request, was " + descriptors);
    }
    for (int i = 0; i < descriptors; i++) {
      RateLimitDescriptor descriptor = request.getDescriptors(i);
      int entries = descriptor.getEntriesCount();
      if (entries > ShouldRateLimit.MAX_ENTRIES) {
        throw new InvalidRequestException(
            "descriptors[" + i + "].entries",
            "at most " + ShouldRateLimit.MAX_ENTRIES + " per descriptor, was " + entries);
      }
      for (int j = 0; j < entries; j++) {
        RateLimitDescriptor.Entry entry = descriptor.getEntries(j);
        String at = "descriptors[" + i + "].entries[" + j + "]";
        wellFormed(at + ".key", entry.getKey());
        wellFormed(at + ".value", entry.getValue());
      }
    }
  }

  private static void wellFormed(String field, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new InvalidRequestException(
            field,
            String.format(
                java.util.Locale.ROOT,
                "must be valid Unicode text, but has an unpaired surrogate \\u%04x at index %d",
                (int) c,
                i));
      }
    }
  }
}
