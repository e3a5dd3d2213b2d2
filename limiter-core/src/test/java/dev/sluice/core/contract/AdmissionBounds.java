package dev.sluice.core.contract;

import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.LimiterAlgorithm;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Judges admissions observed from outside a limiter on the real clock against what its algorithm
 * allows.
 *
 * <h2>What is known of an admission</h2>
 *
 * A caller knows when it sent a request ({@code sentNanos}) and when the answer came back ({@code
 * answeredNanos}), both read from the clock the limiter decides with (the system clock, in one JVM
 * or on one machine). The decision happened somewhere in between. Every bound below counts only the
 * admissions that <em>surely</em> fall inside an interval ({@code sent >= start} and {@code
 * answered <= end}), so it undercounts and can never fail a correct limiter; an over-admission that
 * matters (a fresh budget handed out early) still shows, because it is many permits, not one at an
 * edge.
 *
 * <h2>The bounds</h2>
 *
 * <ul>
 *   <li>fixed_window: at most {@code L} in each epoch-aligned window;
 *   <li>sliding_log, sliding_buckets: at most {@code L} in any interval of length {@code W};
 *   <li>concurrency, with no permit released early: at most {@code L} in any interval of length
 *       {@code permitTtl} (each admission holds its permit that long);
 *   <li>sliding_window: for a cut {@code c} in window {@code k+1}, the admissions surely in that
 *       window before {@code c}, plus {@code floor(N_k × (W - (c - start)) / W)} with {@code N_k}
 *       those surely in window {@code k}, are at most {@code L}: the estimate of docs/algorithms.md
 *       at the last of them, with every count replaced by one it cannot exceed;
 *   <li>token_bucket, gcra, leaky_bucket: at most {@code slots + d × L / W} in any interval of
 *       length {@code d} (the burst plus the sustained rate).
 * </ul>
 */
public final class AdmissionBounds {
  private AdmissionBounds() {}

  /** One admitted request: sent and answered, in epoch nanoseconds. */
  public record Admission(long sentNanos, long answeredNanos) {}

  /**
   * The first violation of {@code policy}'s bound by {@code admissions} (one permit each), in
   * words, or empty if there is none.
   */
  public static Optional<String> violation(Policy policy, List<Admission> admissions) {
    List<Admission> sorted = new ArrayList<>(admissions);
    sorted.sort(Comparator.comparingLong(Admission::sentNanos));
    return switch (policy.algorithm()) {
      case FIXED_WINDOW -> alignedWindows(policy, sorted);
      case SLIDING_LOG, SLIDING_BUCKETS, CONCURRENCY -> anyWindow(policy, sorted);
      case SLIDING_WINDOW -> slidingEstimate(policy, sorted);
      case TOKEN_BUCKET, GCRA, LEAKY_BUCKET -> burstPlusRate(policy, sorted);
    };
  }

  private static Optional<String> alignedWindows(Policy policy, List<Admission> sorted) {
    long w = policy.windowNanos();
    for (Admission first : sorted) {
      long start = first.sentNanos() - Math.floorMod(first.sentNanos(), w);
      long inside = surelyInside(sorted, start, start + w);
      if (inside > policy.limit()) {
        return Optional.of(inside + " admitted in the aligned window starting at " + start + " ns");
      }
    }
    return Optional.empty();
  }

  private static Optional<String> anyWindow(Policy policy, List<Admission> sorted) {
    long w = policy.windowNanos();
    for (Admission first : sorted) {
      long inside = surelyInside(sorted, first.sentNanos(), first.sentNanos() + w);
      if (inside > policy.limit()) {
        return Optional.of(
            inside + " admitted within " + w + " ns from " + first.sentNanos() + " ns");
      }
    }
    return Optional.empty();
  }

  private static Optional<String> slidingEstimate(Policy policy, List<Admission> sorted) {
    long w = policy.windowNanos();
    if (sorted.isEmpty()) {
      return Optional.empty();
    }
    long first = sorted.get(0).sentNanos();
    long last = sorted.get(sorted.size() - 1).answeredNanos();
    for (long start = first - Math.floorMod(first, w) + w; start <= last; start += w) {
      long previous = surelyInside(sorted, start - w, start);
      // Cuts every 1/16 of the window: enough to see a whole budget handed out at once.
      for (int sixteenth = 1; sixteenth <= 16; sixteenth++) {
        long elapsed = w * sixteenth / 16;
        long current = surelyInside(sorted, start, start + elapsed);
        long share =
            BigInteger.valueOf(previous)
                .multiply(BigInteger.valueOf(w - elapsed))
                .divide(BigInteger.valueOf(w))
                .longValueExact();
        if (current + share > policy.limit()) {
          return Optional.of(
              current
                  + " admitted in the first "
                  + elapsed
                  + " ns of the window starting at "
                  + start
                  + " ns, after "
                  + previous
                  + " in the window before: estimate "
                  + (current + share)
                  + " > "
                  + policy.limit());
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> burstPlusRate(Policy policy, List<Admission> sorted) {
    long slots = LimiterAlgorithm.of(policy).capacity();
    BigInteger w = BigInteger.valueOf(policy.windowNanos());
    BigInteger l = BigInteger.valueOf(policy.limit());
    List<Admission> byAnswer = new ArrayList<>(sorted);
    byAnswer.sort(Comparator.comparingLong(Admission::answeredNanos));
    for (Admission from : sorted) {
      // Walking the admissions in answer order, those sent at or after `from` are the ones surely
      // inside [from.sent, to.answered]: counted as they come, O(n) per start.
      long inside = 0;
      for (Admission to : byAnswer) {
        if (to.sentNanos() >= from.sentNanos()) {
          inside++;
        }
        long length = to.answeredNanos() - from.sentNanos();
        if (length < 0) {
          continue;
        }
        // inside <= slots + length × L / W, in integers: (inside - slots) × W <= length × L.
        BigInteger excess = BigInteger.valueOf(inside - slots).multiply(w);
        if (excess.compareTo(BigInteger.valueOf(length).multiply(l)) > 0) {
          return Optional.of(
              inside
                  + " admitted within "
                  + length
                  + " ns from "
                  + from.sentNanos()
                  + " ns: more than "
                  + slots
                  + " + "
                  + length
                  + " ns × "
                  + policy.limit()
                  + " / "
                  + policy.windowNanos()
                  + " ns");
        }
      }
    }
    return Optional.empty();
  }

  /** Admissions sent at or after {@code start} and answered before {@code end}. */
  private static long surelyInside(List<Admission> sortedBySent, long start, long end) {
    long count = 0;
    for (Admission admission : sortedBySent) {
      if (admission.sentNanos() >= end) {
        break;
      }
      if (admission.sentNanos() >= start && admission.answeredNanos() < end) {
        count++;
      }
    }
    return count;
  }
}
