package dev.sendlog.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.zip.DataFormatException;
import org.junit.jupiter.api.Test;

class SnapshotDeflateTest {
    /**
     * Every COMPACTED v2 row ever written needs these exact dictionary bytes to be read. If this fails, the dictionary
     * was edited: put it back, and write a better one as a new COMPACTED version instead.
     */
    @Test
    void theDictionaryOfVersionTwoNeverChanges() throws Exception {
        byte[] hash = MessageDigest.getInstance("SHA-256")
                .digest(SnapshotDeflate.DICTIONARY_1.getBytes(StandardCharsets.UTF_8));
        assertThat(HexFormat.of().formatHex(hash))
                .isEqualTo("5f758ab81a0ba370a99ddd649cb12e144cbc9a034ed92bc7b93a8430f2a0c0b4");
    }

    @Test
    void whatIsDeflatedInflatesToTheSameBytes() throws Exception {
        byte[] plain = "[[1,\"ACCEPTED\",1,0,\"api\",{\"tenant\":\"acme\",\"gateway\":\"sim\"}]]"
                .getBytes(StandardCharsets.UTF_8);
        assertThat(SnapshotDeflate.inflate(SnapshotDeflate.deflate(plain))).isEqualTo(plain);
        assertThat(SnapshotDeflate.inflate(SnapshotDeflate.deflate(new byte[0])))
                .isEmpty();
    }

    @Test
    void aSnapshotThatWouldInflatePastTheBoundIsRefused() {
        byte[] bomb = SnapshotDeflate.deflate(new byte[SnapshotDeflate.MAX_INFLATED + 1]);
        assertThat(bomb.length).isLessThan(64 * 1024);
        assertThatThrownBy(() -> SnapshotDeflate.inflate(bomb))
                .isInstanceOf(DataFormatException.class)
                .hasMessageContaining("inflates past");
    }
}
