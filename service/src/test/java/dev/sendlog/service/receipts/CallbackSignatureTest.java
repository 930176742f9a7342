package dev.sendlog.service.receipts;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The signature is HMAC-SHA256 of the raw body, and the keyed MACs it clones are never shared between uses. */
class CallbackSignatureTest {
    private static final byte[] RFC_4231_DATA = "what do ya want for nothing?".getBytes(StandardCharsets.US_ASCII);
    private static final String RFC_4231_MAC =
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";

    @Test
    void matchesTheRfc4231TestVectorAndVerifiesInAnyCase() {
        assertThat(CallbackSignature.sign("Jefe", RFC_4231_DATA)).isEqualTo(RFC_4231_MAC);
        assertThat(CallbackSignature.sign("Jefe", RFC_4231_DATA)).isEqualTo(RFC_4231_MAC);
        assertThat(CallbackSignature.verify(
                        "Jefe", RFC_4231_DATA, " " + RFC_4231_MAC.toUpperCase(java.util.Locale.ROOT)))
                .isTrue();
        assertThat(CallbackSignature.verify("jefe", RFC_4231_DATA, RFC_4231_MAC))
                .isFalse();
        assertThat(CallbackSignature.verify(
                        "Jefe", "what do ya want for nothing!".getBytes(StandardCharsets.US_ASCII), RFC_4231_MAC))
                .isFalse();
        assertThat(CallbackSignature.verify("Jefe", RFC_4231_DATA, null)).isFalse();
        assertThat(CallbackSignature.verify("", RFC_4231_DATA, RFC_4231_MAC)).isFalse();
    }

    @Test
    void manyThreadsSigningWithTwoSecretsEachGetTheirOwnAnswer() throws Exception {
        String expectedA = CallbackSignature.sign("secret-a", RFC_4231_DATA);
        String expectedB = CallbackSignature.sign("secret-b", RFC_4231_DATA);
        assertThat(expectedA).isNotEqualTo(expectedB);
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                boolean a = i % 2 == 0;
                results.add(pool.submit(() -> {
                    for (int j = 0; j < 500; j++) {
                        String got = CallbackSignature.sign(a ? "secret-a" : "secret-b", RFC_4231_DATA);
                        if (!got.equals(a ? expectedA : expectedB)) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> r : results) {
                assertThat(r.get()).isTrue();
            }
        }
    }
}
