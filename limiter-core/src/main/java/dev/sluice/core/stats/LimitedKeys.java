package dev.sluice.core.stats;

import dev.sluice.core.Check;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The keys each rule is denying now, on one node: a {@link SpaceSaving} sketch of denials (shadow
 * denials included: the keys a shadow rule would limit) per rule and per minute.
 *
 * <h2>"Now"</h2>
 *
 * Sketches cover minutes aligned to the epoch; a node keeps the current minute's and the previous
 * one's, and answers with the two merged ({@link KeySummary#merge}, which keeps the bounds): the
 * denials of the last one to two minutes. A key that stopped being denied drops out within two
 * minutes.
 *
 * <h2>Cost on the decision path</h2>
 *
 * A denial is offered to a {@link DenialBuffer} (one compare-and-set). The thread that finds the
 * buffer half full drains it into the sketches if it wins a {@code tryLock} (never waits: a thread
 * that loses goes on); so does the once-a-second tick, and every read. Allowed decisions cost
 * nothing here.
 *
 * <h2>Memory bound</h2>
 *
 * At most {@value #MAX_RULES} rules have a sketch per minute, each of {@value #KEYS_PER_RULE}
 * counters, over two minutes: 1,024 counters. A key is at most 512 bytes of UTF-8 ({@code
 * StateKey}), at most 512 bytes in a Java string plus 40 bytes of headers; a counter with its hash
 * map entry adds about 80 bytes: at most ~650 KB. The buffer holds at most {@value #BUFFER} checks,
 * whose keys are at most ~560 bytes each: ~290 KB. Together under 1 MB per node whatever the keys;
 * with keys of 20 bytes (an IPv4 address, a user id) about 150 KB. Denials of a rule beyond the
 * first {@value #MAX_RULES} to deny in a minute are counted as {@link #untrackedDenials()}, not
 * sketched.
 */
final class LimitedKeys {
  static final int KEYS_PER_RULE = 32;
  static final int MAX_RULES = 16;
  static final int WINDOW_SECONDS = 60;
  static final int BUFFER = 512;

  private final DenialBuffer buffer = new DenialBuffer(BUFFER);
  private final ReentrantLock drainLock = new ReentrantLock();

  // Guarded by drainLock.
  private long window = Long.MIN_VALUE;
  private Map<String, SpaceSaving> current = new HashMap<>();
  private Map<String, SpaceSaving> previous = Map.of();
  private long untracked;

  /** Notes a denial; on the decision path. */
  void denied(Check check) {
    if (buffer.offer(check) && buffer.size() >= BUFFER / 2 && drainLock.tryLock()) {
      try {
        drain();
      } finally {
        drainLock.unlock();
      }
    }
  }

  /** Drains the buffer and moves to the minute of {@code epochSecond}; called once a second. */
  void tick(long epochSecond) {
    drainLock.lock();
    try {
      drain();
      long now = Math.floorDiv(epochSecond, WINDOW_SECONDS);
      if (window == Long.MIN_VALUE) {
        window = now; // what came before the first tick belongs to its minute
      } else if (now != window) {
        previous = now == window + 1 ? current : Map.of();
        current = new HashMap<>();
        window = now;
      }
    } finally {
      drainLock.unlock();
    }
  }

  /**
   * The current and previous minutes' sketches merged, per rule, sorted by rule; only {@code rule}
   * when it is given.
   */
  Map<String, KeySummary> summaries(@Nullable String rule) {
    drainLock.lock();
    try {
      drain();
      Map<String, KeySummary> answer = new TreeMap<>();
      for (String name : rule == null ? rules() : List.of(rule)) {
        List<KeySummary> windows = new ArrayList<>(2);
        SpaceSaving now = current.get(name);
        SpaceSaving before = previous.get(name);
        if (now != null) {
          windows.add(now.summary());
        }
        if (before != null) {
          windows.add(before.summary());
        }
        if (!windows.isEmpty()) {
          answer.put(name, KeySummary.merge(windows));
        }
      }
      return answer;
    } finally {
      drainLock.unlock();
    }
  }

  /** Denials that were not sketched: the buffer was full, or too many rules denied at once. */
  long untrackedDenials() {
    drainLock.lock();
    try {
      return untracked + buffer.dropped();
    } finally {
      drainLock.unlock();
    }
  }

  private List<String> rules() {
    List<String> names = new ArrayList<>(current.keySet());
    for (String name : previous.keySet()) {
      if (!current.containsKey(name)) {
        names.add(name);
      }
    }
    return names;
  }

  private void drain() {
    buffer.drain(this::sketch);
  }

  private void sketch(Check check) {
    String rule = check.ref().label();
    SpaceSaving sketch = current.get(rule);
    if (sketch == null) {
      if (current.size() >= MAX_RULES) {
        untracked++;
        return;
      }
      sketch = new SpaceSaving(KEYS_PER_RULE);
      current.put(rule, sketch);
    }
    sketch.add(check.key());
  }
}
