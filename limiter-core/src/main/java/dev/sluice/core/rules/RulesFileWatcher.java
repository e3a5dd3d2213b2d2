package dev.sluice.core.rules;

import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.config.ConfigFileException;
import dev.sluice.core.config.PeriodicPoll;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the cluster's rules in step with a rules file: loads it at start (a broken file fails the
 * start) and then polls it.
 *
 * <h2>Why polling</h2>
 *
 * {@code WatchService} misses changes on some file systems (network mounts, and Kubernetes
 * ConfigMap volumes, which swap a symlink rather than write the file). Reading a small file every
 * second and comparing its SHA-256 with the last one seen costs microseconds and catches every kind
 * of edit, atomic rename included.
 *
 * <h2>What a change does</h2>
 *
 * A changed file is parsed whole. If it is broken, the error is logged with file, line and field,
 * and nothing changes: the previous rules stay. If it is valid, the difference is applied to the
 * rule store: rules that are new or changed in the file are put, rules that the previous version of
 * the file had and this one lacks are removed. In the grid the store is cluster-wide, so every
 * member decides with the new rules within a poll interval of the edit on any one member.
 *
 * <h2>File rules and API rules</h2>
 *
 * The file owns the names it lists; {@code PUT /v1/rules/{name}} owns the rest. A rule defined only
 * through the API is never touched by a reload. A rule the file lists can be changed through the
 * API, but the file wins again the next time that rule changes in the file, and when a node starts
 * (it puts the file's rules where the cluster's differ). Members whose file has not changed do
 * nothing, so members never fight over a rule.
 *
 * <h2>Who uses it</h2>
 *
 * The grid node, over its cluster's rule store, and the Spring Boot starter ({@code
 * sluice.rules-file}), over the store of whatever limiter the application runs: an embedded
 * member's, a client's (the cluster's, then), a local one's.
 */
public final class RulesFileWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RulesFileWatcher.class);

  /**
   * Changed versions of the file this node read, by {@code outcome}: {@code applied} or {@code
   * rejected} (broken or unreadable; the previous rules stay). Prometheus: {@code
   * sluice_rules_file_reloads_total}.
   */
  public static final String RELOADS = "sluice.rules.file.reloads";

  /** What one poll did. */
  public enum Outcome {
    UNCHANGED,
    APPLIED,
    REJECTED
  }

  private final Path file;
  private final RuleStore store;
  private final Duration interval;
  private final Object lock = new Object();
  private final PeriodicPoll poller;

  /**
   * The content last seen (applied or rejected), so a broken file is reported once, not forever.
   */
  private byte @Nullable [] lastSeenDigest;

  /**
   * 1 while the file's content is a version this node refused (the previous rules in force), 0 once
   * a version applies. Prometheus: {@code sluice_rules_file_rejected}.
   */
  static final String REJECTED = "sluice.rules.file.rejected";

  /** The rules of the file version last applied, by name; read by the console. */
  private volatile Map<String, Rule> applied = Map.of();

  private volatile boolean rejected;

  private final AtomicLong appliedReloads = new AtomicLong();
  private final AtomicLong rejectedReloads = new AtomicLong();

  public RulesFileWatcher(Path file, RuleStore store, Duration interval) {
    this.file = file;
    this.store = store;
    this.interval = interval;
    this.poller = new PeriodicPoll("sluice-rules-watcher", interval, this::pollQuietly);
  }

  /**
   * Loads the file and puts its rules where the store's differ.
   *
   * @throws ConfigFileException if the file is not a valid rules file
   * @throws UncheckedIOException if it cannot be read
   */
  public List<Rule> loadInitial() {
    synchronized (lock) {
      byte[] content = read();
      List<Rule> rules =
          RulesFile.parse(file.toString(), new String(content, StandardCharsets.UTF_8));
      apply(rules, true);
      lastSeenDigest = sha256(content);
      return rules;
    }
  }

  /** Checks the file once: applies a valid change, logs and ignores a broken one. */
  public Outcome poll() {
    synchronized (lock) {
      byte[] content;
      try {
        content = Files.readAllBytes(file);
      } catch (IOException e) {
        byte[] marker = sha256(("unreadable:" + e).getBytes(StandardCharsets.UTF_8));
        if (!Arrays.equals(marker, lastSeenDigest)) {
          lastSeenDigest = marker;
          LOG.error(
              "rules file {} cannot be read ({}); keeping the previous {} rules",
              file,
              e,
              applied.size());
          rejectedReloads.incrementAndGet();
          rejected = true;
          return Outcome.REJECTED;
        }
        return Outcome.UNCHANGED;
      }
      byte[] digest = sha256(content);
      if (Arrays.equals(digest, lastSeenDigest)) {
        return Outcome.UNCHANGED;
      }
      lastSeenDigest = digest;
      List<Rule> rules;
      try {
        rules = RulesFile.parse(file.toString(), new String(content, StandardCharsets.UTF_8));
      } catch (ConfigFileException e) {
        LOG.error(
            "rules file change rejected: {}; keeping the previous {} rules",
            e.getMessage(),
            applied.size());
        rejectedReloads.incrementAndGet();
        rejected = true;
        return Outcome.REJECTED;
      }
      int changed = apply(rules, false);
      LOG.info("rules file {} reloaded: {} rules, {} changed", file, rules.size(), changed);
      appliedReloads.incrementAndGet();
      rejected = false;
      return Outcome.APPLIED;
    }
  }

  /**
   * Reports the reloads in {@code registry} ({@value #RELOADS}), so that an operator can alert on a
   * rejected edit, which otherwise only the log tells.
   */
  public void bindTo(MeterRegistry registry) {
    FunctionCounter.builder(RELOADS, appliedReloads, AtomicLong::get)
        .tag("outcome", "applied")
        .description("Changed versions of the rules file, applied or rejected")
        .register(registry);
    FunctionCounter.builder(RELOADS, rejectedReloads, AtomicLong::get)
        .tag("outcome", "rejected")
        .description("Changed versions of the rules file, applied or rejected")
        .register(registry);
    Gauge.builder(REJECTED, this, watcher -> watcher.rejected ? 1 : 0)
        .description("1 while the rules file holds a version this node refused; 0 once one applies")
        .register(registry);
  }

  /** The rule {@code name} as the version of the file last applied defines it, if it does. */
  public Optional<Rule> fileRule(String name) {
    return Optional.ofNullable(applied.get(name));
  }

  /** Polls every interval on a daemon thread until {@link #close()}. */
  public RulesFileWatcher start() {
    poller.start();
    return this;
  }

  @Override
  public void close() {
    poller.close();
  }

  private void pollQuietly() {
    try {
      poll();
    } catch (RuntimeException e) {
      // The store may be briefly unreachable (e.g. during a migration): try again next time.
      lastSeenDigest = null;
      LOG.warn("rules file {} could not be applied ({}); retrying", file, e.toString());
    }
  }

  /**
   * Puts new and changed rules, removes the ones the file dropped; returns how many changed. At the
   * first load a rule is put where the store's differs; after that, only where the file's changed
   * since the version last applied, so that a reload does not undo an API change to a rule the edit
   * did not touch.
   */
  private int apply(List<Rule> rules, boolean initial) {
    Map<String, Rule> next = new LinkedHashMap<>();
    for (Rule rule : rules) {
      next.put(rule.name(), rule);
    }
    int changed = 0;
    for (Rule rule : next.values()) {
      Optional<Rule> current =
          initial ? store.find(rule.name()) : Optional.ofNullable(applied.get(rule.name()));
      if (current.isEmpty() || !current.get().equals(rule)) {
        store.put(rule);
        changed++;
      }
    }
    for (String dropped : applied.keySet()) {
      if (!next.containsKey(dropped) && store.remove(dropped)) {
        changed++;
      }
    }
    applied = Map.copyOf(next);
    return changed;
  }

  private byte[] read() {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the rules file " + file + ": " + e, e);
    }
  }

  private static byte[] sha256(byte[] content) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(content);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  @Override
  public String toString() {
    return "RulesFileWatcher[" + file + ", every " + interval + ", " + applied.size() + " rules]";
  }
}
