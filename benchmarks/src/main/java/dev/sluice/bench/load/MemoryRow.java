package dev.sluice.bench.load;

/**
 * Bytes per active key for one store, or why it was not measured.
 *
 * @param store what was measured, e.g. "Sluice (LocalMapStats, owned entries)"
 * @param keys how many keys were active when measured
 * @param bytesPerKey the measured cost divided by {@code keys}
 * @param method how the bytes were counted
 * @param notRunReason null when measured
 */
public record MemoryRow(
    String store, long keys, double bytesPerKey, String method, String notRunReason) {

  public static MemoryRow notRun(String store, String reason) {
    return new MemoryRow(store, 0, 0, "", reason);
  }

  public boolean ran() {
    return notRunReason == null;
  }
}
