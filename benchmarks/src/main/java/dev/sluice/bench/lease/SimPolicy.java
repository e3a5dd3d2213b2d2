package dev.sluice.bench.lease;

import dev.sluice.core.lease.LeasePolicy;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The lease policies the simulator compares, each a holder's {@link LeasePolicy} (the owner's grant
 * is {@code KeyDecision}'s, the same for all), plus leases off as the baseline.
 *
 * <p>Memory is estimated from the objects each keeps, on a 64-bit JVM with compressed references
 * (12-byte headers, 8-byte alignment): per key tracked, its record, a map node (32 bytes) and the
 * state key's string (about 56 bytes for a short key); per lease held ({@link #LEASE_BYTES}), the
 * lease (128: eleven longs, five references, an int and a flag), its counter (24) and a map node
 * (32), plus a node of the set of short leases (32) for a short one.
 */
enum SimPolicy {
  /** No lease: every request is decided at the owner. */
  OFF("off", null, 0),

  /**
   * Four kinds of keys (burst, warm, steady, quiet), three kinds of grant: the heat record is 72
   * bytes (four longs, four ints, a flag and a reference) with a {@code LongAdder} (32).
   */
  KINDS("kinds", LeasePolicy.KINDS, 72 + 32 + 32 + 56);

  /** Bytes per lease held: see the class doc. */
  static final long LEASE_BYTES = 128 + 24 + 32 + 32;

  private final String label;
  private final LeasePolicy.@Nullable Factory factory;
  private final long bytesPerKey;

  SimPolicy(String label, LeasePolicy.@Nullable Factory factory, long bytesPerKey) {
    this.label = label;
    this.factory = factory;
    this.bytesPerKey = bytesPerKey;
  }

  String label() {
    return label;
  }

  /** The holders' policy; null: no leases at all. */
  LeasePolicy.@Nullable Factory factory() {
    return factory;
  }

  long bytesPerKey() {
    return bytesPerKey;
  }

  /** The policy labelled {@code label}. */
  static SimPolicy of(String label) {
    for (SimPolicy policy : values()) {
      if (policy.label.equals(label.strip().toLowerCase(Locale.ROOT))) {
        return policy;
      }
    }
    throw new IllegalArgumentException(
        "no lease policy '"
            + label
            + "'; there are "
            + Arrays.stream(values()).map(SimPolicy::label).collect(Collectors.joining(", ")));
  }
}
