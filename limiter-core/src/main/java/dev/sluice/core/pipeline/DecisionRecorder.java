package dev.sluice.core.pipeline;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Reservation;
import java.util.List;

/**
 * Who records the answers a {@link PipelineRateLimiter} gives its callers (the metrics of
 * docs/rest-api.md): told each one once, where the pipeline answers, whichever layer of its stack
 * made it.
 */
public interface DecisionRecorder {

  /**
   * One check's answer; the decision started at {@code startNanos} ({@code System.nanoTime}). An
   * answer made in front of the owner without waiting (a lease's, a cached denial's) need not be
   * timed: it takes nanoseconds.
   */
  void decided(Check check, Decision decision, long startNanos);

  /** A batch's answers, in the checks' order: one decision each, and one duration for all. */
  void decidedAll(List<Check> checks, List<Decision> decisions, long startNanos);

  /** A reservation's answer: a decision like a check's, and a reservation if it holds one. */
  void reserved(Check check, Reservation reservation, long startNanos);

  /** A reservation the owner settled. */
  void committed();

  /** A concurrency permit given back by its id. */
  void permitReleased(PolicyRef ref, String key, long permitId);
}
