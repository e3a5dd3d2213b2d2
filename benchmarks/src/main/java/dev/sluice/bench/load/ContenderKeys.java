package dev.sluice.bench.load;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Gives each contender keys of its own on a server that several contenders share. Without it, rows
 * on one grid node (leases on and off, REST and Envoy RLS) shared the state of every key: the row
 * that ran right after another found each key's entry made and its window partly counted, while the
 * row after Redis found them expired and made them again. Two identical Sluice client rows measured
 * 0.955× of each other that way in S2.
 */
final class ContenderKeys {
  private static final AtomicInteger IDS = new AtomicInteger();

  private ContenderKeys() {}

  /** A prefix no other contender of this run uses, to put in front of the load's keys. */
  static String prefix() {
    return "c" + IDS.incrementAndGet() + "|";
  }
}
