package dev.sluice.bench.load;

import com.hazelcast.config.InMemoryFormat;

/**
 * What every scenario of one run shares: its settings, the server processes (started once, when
 * first needed, stopped at the end), the state map settings that Bucket4j's map copies from
 * Sluice's, and the report the scenarios add to.
 */
public record BenchContext(
    BenchSettings settings, Servers servers, StateMapSettings stateMap, Report report) {

  /** The state map settings Bucket4j's map copies from Sluice's, and where they came from. */
  public record StateMapSettings(int backupCount, InMemoryFormat format, String source) {}
}
