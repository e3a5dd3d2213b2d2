package dev.sluice.spring.actuate;

import dev.sluice.client.GridState;
import dev.sluice.client.SluiceClient;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import java.time.Duration;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of the limiter, as {@code /actuator/health} shows it under {@code sluice}: UP while
 * the grid answers ({@link GridState#CONNECTED}), DOWN while it cannot be reached (connecting,
 * disconnected, or connected but not answering: the breaker answers by the failure policy) or the
 * client is closed. While the breaker is open the check itself asks the grid (one peek), so that an
 * application without traffic finds its grid back too. Details: {@code state} and {@code
 * gridUnavailable}, whether decisions are being made by the failure policy right now.
 */
public class SluiceHealthIndicator extends AbstractHealthIndicator {
  /** What the check peeks at while the breaker is open: an inline policy, nothing stored. */
  private static final PolicyRef PROBE = PolicyRef.inline(Policy.of(1, Duration.ofSeconds(1)));

  private final SluiceClient client;

  public SluiceHealthIndicator(SluiceClient client) {
    super("the Sluice grid could not be checked");
    this.client = client;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    GridState state = client.gridState();
    if (state == GridState.CONNECTED && client.gridUnavailable()) {
      // The breaker closes on a call that the grid answers; an idle application makes none, so the
      // check sends one (a peek: nothing counted), at most one per the breaker's probe interval.
      try {
        client.peek(PROBE, "health");
      } catch (RuntimeException stillAway) {
        // The breaker let no probe through yet, or the grid did not answer it: DOWN below.
      }
    }
    boolean unavailable = client.gridUnavailable();
    if (state == GridState.CONNECTED && !unavailable) {
      builder.up();
    } else {
      builder.down();
    }
    builder.withDetail("state", state.wireName()).withDetail("gridUnavailable", unavailable);
  }
}
