package dev.sluice.rest;

import org.jspecify.annotations.Nullable;

/**
 * How the API guards itself.
 *
 * @param adminToken the bearer token admin routes require; null or empty leaves them open (the grid
 *     node allows that only on a loopback bind or with {@code --insecure})
 * @param maxBodyBytes the largest request body accepted; larger ones get 413
 * @param maxBatchChecks the most checks one {@code POST /v1/check/batch} may carry
 */
public record ApiSettings(@Nullable String adminToken, int maxBodyBytes, int maxBatchChecks) {
  public static final int DEFAULT_MAX_BODY_BYTES = 64 * 1024;
  public static final int DEFAULT_MAX_BATCH_CHECKS = 1_000;

  public ApiSettings {
    if (maxBodyBytes < 1) {
      throw new IllegalArgumentException("maxBodyBytes must be positive, was " + maxBodyBytes);
    }
    if (maxBatchChecks < 1) {
      throw new IllegalArgumentException("maxBatchChecks must be positive, was " + maxBatchChecks);
    }
  }

  /** 64 KiB bodies, 1,000 checks a batch, and the given admin token (null: admin routes open). */
  public static ApiSettings withAdminToken(@Nullable String adminToken) {
    return new ApiSettings(adminToken, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_BATCH_CHECKS);
  }

  /** Whether admin routes require a token. */
  public boolean adminTokenRequired() {
    return adminToken != null && !adminToken.isEmpty();
  }

  /** Never prints the token. */
  @Override
  public String toString() {
    return "ApiSettings[adminToken="
        + (adminTokenRequired() ? "<set>" : "<none>")
        + ", maxBodyBytes="
        + maxBodyBytes
        + ", maxBatchChecks="
        + maxBatchChecks
        + "]";
  }
}
