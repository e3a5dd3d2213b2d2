package dev.sluice.core;

/**
 * What a release shows to give permits back (docs/rest-api.md, "Giving permits back"): the {@link
 * Receipt} of the admission, or a bare count, which only a rule that opts in ({@link
 * Policy.Release#OPEN}) takes from anyone, and which trusted code may give on its own authority
 * ({@link Bare#WITHOUT_PROOF}). Permit ids and reservation ids prove themselves and have calls of
 * their own ({@link RateLimiter#releasePermit}, {@link RateLimiter#commit}).
 */
public sealed interface ReleaseProof permits Receipt, ReleaseProof.Bare {

  /** A bare count of permits. */
  enum Bare implements ReleaseProof {
    /** No proof: taken only by a rule with {@code release: open}. */
    NONE,
    /**
     * No proof, on the caller's own authority: the embedding application's explicit opt-in ({@link
     * RateLimiter#releaseWithoutProof}), and REST's with the admin token. Code that hands this to
     * callers it does not trust gives them back the refund-anything hole receipts close.
     */
    WITHOUT_PROOF
  }
}
