package dev.sluice.bench.load;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The keys a workload draws from, by index. Keys are built once up front so that no contender pays
 * for string formatting inside the measured loop; the load loop draws an index ({@link #next}),
 * which also names the key in the exactness bookkeeping.
 */
public final class KeySpace {
  private final String[] keys;
  private final String description;
  private final ZipfSampler zipf;

  private KeySpace(String[] keys, String description, ZipfSampler zipf) {
    this.keys = keys;
    this.description = description;
    this.zipf = zipf;
  }

  /** {@code count} distinct keys, drawn uniformly at random. */
  public static KeySpace uniform(String prefix, int count) {
    return new KeySpace(
        names(prefix, count), String.format(Locale.ROOT, "%,d keys, uniform", count), null);
  }

  /**
   * {@code count} keys drawn with Zipf's law of exponent {@code s}: {@code prefix + 0} is the
   * hottest, {@code prefix + 1} the next, and so on.
   */
  public static KeySpace zipf(String prefix, int count, double s) {
    return new KeySpace(
        names(prefix, count),
        String.format(
            Locale.ROOT,
            "%,d keys, Zipf s = %s (`%s0` the hottest, %.1f %% of calls)",
            count,
            s,
            prefix,
            100 * new ZipfSampler(count, s).probability(0)),
        new ZipfSampler(count, s));
  }

  /** One key for every call. */
  public static KeySpace hot(String key) {
    return new KeySpace(new String[] {key}, "one hot key", null);
  }

  private static String[] names(String prefix, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1, was " + count);
    }
    String[] keys = new String[count];
    for (int i = 0; i < count; i++) {
      keys[i] = prefix + i;
    }
    return keys;
  }

  /** The index of the key for the next call of a thread that owns {@code random}. */
  public int next(SplittableRandom random) {
    if (keys.length == 1) {
      return 0;
    }
    return zipf != null ? zipf.next(random) : random.nextInt(keys.length);
  }

  public int size() {
    return keys.length;
  }

  public String key(int index) {
    return keys[index];
  }

  public String description() {
    return description;
  }
}
