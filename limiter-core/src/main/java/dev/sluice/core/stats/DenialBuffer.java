package dev.sluice.core.stats;

import dev.sluice.core.Check;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * A bounded queue of denied checks between the threads that decide (many) and the one that feeds
 * the sketches (one at a time, under {@link LimitedKeys}' drain lock), so that a denial costs its
 * decider one compare-and-set instead of a lock.
 *
 * <p>Writers claim a slot by advancing {@code tail} with a compare-and-set, only while fewer than
 * {@code capacity} slots are claimed and not yet drained; then they publish the check into the
 * slot. The reader takes published slots from {@code head} on, clears each, then advances {@code
 * head} (a volatile write, so a writer that sees the new head also sees the cleared slot). A slot
 * claimed but not yet published stops the drain there; the next drain takes it. When the buffer is
 * full the denial is dropped and counted ({@link #dropped()}): the sketches then summarize the
 * denials that got in, which the console reports beside them.
 */
final class DenialBuffer {
  private final AtomicReferenceArray<Check> slots;
  private final int mask;
  private final AtomicLong tail = new AtomicLong();
  private final LongAdder dropped = new LongAdder();
  private volatile long head;

  /**
   * @param capacity a power of two
   */
  DenialBuffer(int capacity) {
    if (capacity < 2 || Integer.bitCount(capacity) != 1) {
      throw new IllegalArgumentException("capacity must be a power of two, was " + capacity);
    }
    this.slots = new AtomicReferenceArray<>(capacity);
    this.mask = capacity - 1;
  }

  /** Adds a denied check, or drops it (and counts it) when the buffer is full. */
  boolean offer(Check check) {
    long claimed;
    do {
      claimed = tail.get();
      if (claimed - head > mask) {
        dropped.increment();
        return false;
      }
    } while (!tail.compareAndSet(claimed, claimed + 1));
    slots.setRelease((int) claimed & mask, check);
    return true;
  }

  /** Checks claimed and not yet drained. */
  int size() {
    return (int) (tail.get() - head);
  }

  /** Hands every published check to {@code sink}, oldest first. One caller at a time. */
  int drain(Consumer<Check> sink) {
    long from = head;
    long to = tail.get();
    long at = from;
    while (at < to) {
      int slot = (int) at & mask;
      Check check = slots.getAcquire(slot);
      if (check == null) {
        break; // claimed, not yet published
      }
      slots.setRelease(slot, null);
      sink.accept(check);
      at++;
    }
    head = at;
    return (int) (at - from);
  }

  /** Denials dropped because the buffer was full. */
  long dropped() {
    return dropped.sum();
  }
}
