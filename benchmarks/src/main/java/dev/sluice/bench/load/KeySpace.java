package dev.sluice.bench.load;

import java.util.SplittableRandom;

/**
 * The keys a workload draws from. Keys are built once up front so that no contender pays for string
 * formatting inside the measured loop.
 */
public final class KeySpace {
  private final String[] keys;
  private final String description;

  private KeySpace(String[] keys, String description) {
    this.keys = keys;
    this.description = description;
  }

  /** {@code count} distinct keys, drawn uniformly at random. */
  public static KeySpace uniform(String prefix, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1, was " + count);
    }
    String[] keys = new String[count];
    for (int i = 0; i < count; i++) {
      keys[i] = prefix + i;
    }
    return new KeySpace(keys, String.format("%,d keys, uniform", count));
  }

  /** One key for every call. */
  public static KeySpace hot(String key) {
    return new KeySpace(new String[] {key}, "one hot key");
  }

  /** The key for the next call of a thread that owns {@code random}. */
  public String next(SplittableRandom random) {
    return keys.length == 1 ? keys[0] : keys[random.nextInt(keys.length)];
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
