package dev.sluice.spring.actuate;

import dev.sluice.client.GridState;
import dev.sluice.client.SluiceClient;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of the limiter, as {@code /actuator/health} shows it under {@code sluice}: UP while
 * the grid answers ({@link GridState#CONNECTED}), DOWN while it cannot be reached (connecting,
 * disconnected, or connected but not answering: the breaker answers by the failure policy) or the
 * client is closed. Details: {@code state} and {@code gridUnavailable}, whether decisions are being
 * made by the failure policy right now.
 */
public class SluiceHealthIndicator extends AbstractHealthIndicator {
  private final SluiceClient client;

  public SluiceHealthIndicator(SluiceClient client) {
    super("the Sluice grid could not be checked");
    this.client = client;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    GridState state = client.gridState();
    boolean unavailable = client.gridUnavailable();
    if (state == GridState.CONNECTED && !unavailable) {
      builder.up();
    } else {
      builder.down();
    }
    builder.withDetail("state", state.wireName()).withDetail("gridUnavailable", unavailable);
  }
}
