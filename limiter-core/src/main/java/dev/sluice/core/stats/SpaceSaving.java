package dev.sluice.core.stats;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * The heavy hitters of a stream of keys in {@code k} counters: Space-Saving (Metwally, Agrawal and
 * El Abbadi, "Efficient computation of frequent and top-k elements in data streams", 2005).
 *
 * <h2>The rule</h2>
 *
 * Each counter holds a key, a count and an error. For the next key {@code x}:
 *
 * <pre>
 *   x has a counter           → count += 1
 *   fewer than k counters     → new counter (x, 1, 0)
 *   otherwise                 → the counter with the smallest count m becomes (x, m + 1, m)
 * </pre>
 *
 * <h2>Why the bounds hold</h2>
 *
 * The counts always sum to N, the keys seen, so the smallest is at most {@code N / k}. A key that
 * takes over a counter inherits its count {@code m} as error: it may have been seen up to {@code m}
 * times before (each time evicted again), never more, since every eviction happened at the minimum
 * and the minimum never decreases. Hence, for every key {@code x} with true frequency {@code f(x)}:
 * a counted key has {@code count - error <= f(x) <= count}, and a key without a counter has {@code
 * f(x) <= m <= N / k}. So any key seen more than {@code N / k} times holds a counter.
 *
 * <p>Worked example, k = 2, stream {@code a a b c a}: a=1, a=2, b=1/0, then c evicts b (the
 * minimum, 1) and becomes c=2/1, then a=3. The answer: a = 3 exactly; c between 1 and 2 (true 1); b
 * not listed, at most m = 2 (true 1). N = 5, N / k = 2.5.
 *
 * <h2>Cost</h2>
 *
 * A hash map finds a key's counter and a binary min-heap (counters ordered by count) finds the
 * smallest: {@code O(log k)} per key, at most {@code k} keys held. Not thread-safe: {@link
 * LimitedKeys} feeds each sketch from one thread at a time.
 */
final class SpaceSaving {
  private static final class Counter {
    final String key;
    long count;
    final long error;
    int heapIndex;

    Counter(String key, long count, long error) {
      this.key = key;
      this.count = count;
      this.error = error;
    }
  }

  private final int capacity;
  private final HashMap<String, Counter> byKey;
  private final Counter[] heap;
  private int size;
  private long total;

  SpaceSaving(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
    }
    this.capacity = capacity;
    this.byKey = new HashMap<>(capacity * 2);
    this.heap = new Counter[capacity];
  }

  /** Counts one occurrence of {@code key}. */
  void add(String key) {
    total++;
    Counter counter = byKey.get(key);
    if (counter != null) {
      counter.count++;
      siftDown(counter.heapIndex);
      return;
    }
    if (size < capacity) {
      counter = new Counter(key, 1, 0);
      counter.heapIndex = size;
      heap[size++] = counter;
      byKey.put(key, counter);
      siftUp(counter.heapIndex);
      return;
    }
    Counter evicted = heap[0];
    byKey.remove(evicted.key);
    counter = new Counter(key, evicted.count + 1, evicted.count);
    counter.heapIndex = 0;
    heap[0] = counter;
    byKey.put(key, counter);
    siftDown(0);
  }

  /** Keys seen, over all keys. */
  long total() {
    return total;
  }

  /** The counters as a summary, largest count first. */
  KeySummary summary() {
    List<KeyCount> keys = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      keys.add(new KeyCount(heap[i].key, heap[i].count, heap[i].error));
    }
    long unlistedAtMost = size < capacity ? 0 : heap[0].count;
    return new KeySummary(KeySummary.sorted(keys), unlistedAtMost, total);
  }

  private void siftUp(int index) {
    Counter moving = heap[index];
    while (index > 0) {
      int parent = (index - 1) >>> 1;
      if (heap[parent].count <= moving.count) {
        break;
      }
      place(heap[parent], index);
      index = parent;
    }
    place(moving, index);
  }

  private void siftDown(int index) {
    Counter moving = heap[index];
    int half = size >>> 1;
    while (index < half) {
      int child = 2 * index + 1;
      int right = child + 1;
      if (right < size && heap[right].count < heap[child].count) {
        child = right;
      }
      if (moving.count <= heap[child].count) {
        break;
      }
      place(heap[child], index);
      index = child;
    }
    place(moving, index);
  }

  private void place(Counter counter, int index) {
    heap[index] = counter;
    counter.heapIndex = index;
  }
}
