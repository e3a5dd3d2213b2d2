package dev.sluice.spring;

import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.config.PeriodicPoll;
import dev.sluice.core.rules.RulesFileWatcher;
import dev.sluice.spring.SluiceProperties.RuleProperties;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the application's rules into the limiter's rule store: {@code sluice.rules} at start, and
 * {@code sluice.rules-file} at start and on every edit (the node's {@link RulesFileWatcher}).
 *
 * <p>Both were validated when {@code sluice.*} was bound ({@link SluicePropertiesValidator}), grid
 * or not: a broken rule or file fails the start with the property's name. A client whose grid is
 * not there yet cannot store them: it keeps trying every reload interval (decisions follow the
 * failure policy meanwhile), and says so in the log.
 */
final class SluiceRules implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SluiceRules.class);

  private final RuleStore store;
  private final List<Rule> inline;
  private final @Nullable Path file;
  private final @Nullable RulesFileWatcher watcher;
  private final PeriodicPoll keeper;
  private final AtomicBoolean stored = new AtomicBoolean();
  private volatile List<Rule> fromFile = List.of();

  SluiceRules(RateLimiter limiter, SluiceProperties properties, @Nullable MeterRegistry registry) {
    this.store = limiter.rules();
    this.inline = inlineRules(properties.rules());
    this.file = properties.rulesFile();
    Duration interval = properties.rulesReloadInterval();
    this.watcher = file == null ? null : new RulesFileWatcher(file, store, interval);
    if (watcher != null && registry != null) {
      watcher.bindTo(registry);
    }
    this.keeper = new PeriodicPoll("sluice-rules-store", interval, this::keep);
  }

  /** {@code sluice.rules} as rules ({@link SluicePropertiesValidator} checked them at binding). */
  static List<Rule> inlineRules(List<RuleProperties> rules) {
    return rules.stream().map(rule -> rule.toSpec().toRule()).toList();
  }

  /**
   * Stores the rules now, or keeps trying in the background if the grid cannot take them; then
   * keeps them there ({@link #keep}).
   */
  SluiceRules start() {
    try {
      store();
    } catch (RuntimeException e) {
      LOG.warn(
          "the rules cannot be stored yet ({}); decisions follow the failure policy, and the rules"
              + " are stored once the grid can be reached",
          e.toString());
    }
    keeper.start();
    return this;
  }

  private void store() {
    for (Rule rule : inline) {
      store.put(rule);
    }
    if (watcher != null) {
      fromFile = watcher.loadInitial();
      if (!stored.get()) {
        watcher.start();
      }
    }
    stored.set(true);
    LOG.info(
        "sluice rules stored: {} inline{}", inline.size(), watcher == null ? "" : ", " + watcher);
  }

  /**
   * Every reload interval: stores the rules if they are not stored yet, and stores them again if
   * the grid lost any (a client whose grid was restarted empty finds its rules gone: the
   * application's configuration holds them, so it puts them back, as it did at start).
   */
  private void keep() {
    try {
      if (!stored.get() || lostAny()) {
        if (stored.get()) {
          LOG.warn("the grid lost sluice rules (was it restarted?); storing them again");
        }
        store();
      }
    } catch (RuntimeException e) {
      LOG.debug("the rules cannot be stored or checked now: {}", e.toString());
    }
  }

  private boolean lostAny() {
    for (List<Rule> rules : List.of(inline, fromFile)) {
      for (Rule rule : rules) {
        if (store.find(rule.name()).isEmpty()) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether the rules are in the store (false while a client waits for its grid). */
  boolean stored() {
    return stored.get();
  }

  @Override
  public void close() {
    keeper.close();
    if (watcher != null) {
      watcher.close();
    }
  }
}
