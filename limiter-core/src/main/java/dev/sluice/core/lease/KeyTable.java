package dev.sluice.core.lease;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A lease policy's keys, bounded: beyond {@code maxKeys} the keys idle for two seconds are
 * forgotten (their counts say nothing any more) unless the holder holds a lease of them (its
 * answers count in the key); if that leaves more than three quarters, the table starts over, so
 * that the forgetting is paid once per a quarter of {@code maxKeys} new keys at least. One thread
 * forgets at a time; the others go on counting. Thread-safe.
 */
final class KeyTable<K extends KeyCounts> {
  private final ConcurrentHashMap<String, K> keys = new ConcurrentHashMap<>();
  private final AtomicBoolean forgetting = new AtomicBoolean();
  private final int maxKeys;
  private final Predicate<String> leased;
  private final Supplier<K> newKey;

  KeyTable(int maxKeys, Predicate<String> leased, Supplier<K> newKey) {
    this.maxKeys = maxKeys;
    this.leased = leased;
    this.newKey = newKey;
  }

  /** The key of {@code stateKey}, tracked from {@code now} on if it was not. */
  K track(String stateKey, long now) {
    if (keys.size() > maxKeys) {
      forgetIdleKeys(now);
    }
    return keys.computeIfAbsent(stateKey, key -> newKey.get());
  }

  /** The key of {@code stateKey}, or null if it is not tracked. */
  @Nullable K get(String stateKey) {
    return keys.get(stateKey);
  }

  int size() {
    return keys.size();
  }

  /** Whether an ask for a lease of any key is on its way at {@code now}. */
  boolean asking(long now) {
    for (K key : keys.values()) {
      synchronized (key) {
        if (key.askPendingAt(now)) {
          return true;
        }
      }
    }
    return false;
  }

  private void forgetIdleKeys(long now) {
    if (!forgetting.compareAndSet(false, true)) {
      return;
    }
    try {
      keys.entrySet().removeIf(e -> e.getValue().idleAt(now) && !leased.test(e.getKey()));
      if (keys.size() > maxKeys / 4 * 3) {
        keys.clear();
      }
    } finally {
      forgetting.set(false);
    }
  }
}
