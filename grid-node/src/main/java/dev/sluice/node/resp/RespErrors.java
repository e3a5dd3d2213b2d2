package dev.sluice.node.resp;

import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.ReleaseException;
import dev.sluice.core.ReservationException;
import dev.sluice.core.UnknownRuleException;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the pipeline's refusals and failures look like on this port: the one place exceptions become
 * error replies, as REST maps them to statuses in one place. No Java class name or stack trace
 * reaches a client.
 */
final class RespErrors {
  private static final Logger LOG = LoggerFactory.getLogger(RespErrors.class);

  private RespErrors() {}

  /** The error reply for {@code failure}. */
  static Reply of(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof CommandError error) {
      return Reply.error(error.reply());
    }
    if (cause instanceof InvalidPolicyException invalid) {
      return Reply.error("ERR " + invalid.getMessage());
    }
    if (cause instanceof UnknownRuleException unknown) {
      return Reply.error(unknownRule(unknown.rule()));
    }
    if (cause instanceof ReservationException reservation) {
      return Reply.error(
          "ERR reservation "
              + reservation.reason().name().toLowerCase(Locale.ROOT)
              + ": "
              + reservation.getMessage());
    }
    if (cause instanceof ReleaseException release) {
      return Reply.error(release(release));
    }
    if (cause instanceof RejectedExecutionException) {
      return Reply.error("ERR busy: too many commands of this kind in flight on this node; retry");
    }
    LOG.debug("a Redis protocol command failed", cause);
    return Reply.error("ERR the grid did not answer; retry (the node's log has the cause)");
  }

  /**
   * A release that freed nothing: a bare count without the admin token on a rule that wants proof
   * is {@code NOPERM}, as an admin command without {@code AUTH} is (REST: 401); a receipt refused
   * says why ({@code ERR release spent: ...}, {@code expired}, {@code not_issued_here}).
   */
  private static String release(ReleaseException refused) {
    if (refused.reason() == ReleaseException.Reason.PROOF_REQUIRED) {
      return "NOPERM "
          + refused.getMessage()
          + "; here: SLUICE.RELEASE RECEIPT <receipt>, or AUTH <token> first";
    }
    return "ERR release "
        + refused.reason().name().toLowerCase(Locale.ROOT)
        + ": "
        + refused.getMessage();
  }

  /** The error of a rule that does not exist, naming it and where to look. */
  static String unknownRule(String rule) {
    return "ERR unknown rule '"
        + rule
        + "'; SLUICE.RULES GET lists the rules, or give ~ and an inline policy (LIMIT, WINDOW)";
  }

  /**
   * Whether a batch that failed with {@code failure} was refused whole for one check's sake, with
   * nothing counted (the pipeline validates a batch before it decides any of it): its checks can
   * then be decided one by one, each with its own answer.
   */
  static boolean refusedBeforeCounting(Throwable failure) {
    Throwable cause = unwrap(failure);
    return cause instanceof InvalidPolicyException || cause instanceof UnknownRuleException;
  }

  static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
