package dev.sendlog.events;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The compression of a COMPACTED v2 snapshot: raw DEFLATE with a preset dictionary. A snapshot is a few hundred
 * bytes of JSON; on its own DEFLATE finds little to repeat in that, but most of it (event types, field names, actor
 * names, timestamp prefixes) is the same in every snapshot, so a dictionary of one typical history lets DEFLATE
 * refer to it instead. A snapshot shrinks to about a sixth.
 *
 * <p>The dictionary is part of the stored format: every snapshot written with it needs the same bytes to be read.
 * Never edit {@link #DICTIONARY_1}; a better dictionary is a new COMPACTED version with a new constant, and this one
 * stays for reading. {@code SnapshotDeflateTest} pins its hash.
 */
final class SnapshotDeflate {
    /**
     * Rare shapes first, the common life of a message last: DEFLATE codes a nearer match in fewer bits. The layout is
     * that of {@link EventCodec}'s packed events, {@code [seq, type, version, at, actor, data]}.
     */
    static final String DICTIONARY_1 = """
            [0,"OUTCOME_UNKNOWN",1,0,"timer",{"reason":"no final receipt within PT48H"}],\
            [0,"RESOLVED",1,0,"support",{"parkedId":0,"action":"discard","status":"UNDELIVERED","note":null}],\
            [0,"DEAD",1,0,"timer",{"attempts":5,"reason":"attempt limit 5 reached"}],\
            [0,"REJECTED",1,0,"api",{"stage":"check","reason":"recipient is not E.164"}],\
            [0,"REDRIVEN",1,0,"timer",{"attempt":2,"reason":"CLAIM_TIMEOUT"}],\
            [0,"REDRIVEN",1,0,"timer",{"attempt":2,"reason":"RETRY_DUE"}],\
            [0,"ATTEMPT_FAILED",1,0,"worker",{"attempt":1,"error":"provider answered 503","nextAttemptAt":"2026-01-01T00:00:00.000000Z"}],\
            [0,"RECEIPT",1,0,"callbacks",{"kind":"UNKNOWN","gateway":"sim","providerId":"","providerStatus":"UNKNOWN",\
            "providerTimestamp":"2026-01-01T00:00:00Z","errorCode":"","inboxId":0}],\
            [0,"RECEIPT",1,0,"callbacks",{"kind":"UNDELIVERED","gateway":"sim","providerId":"","providerStatus":"UNDELIV",\
            "providerTimestamp":"2026-01-01T00:00:00Z","errorCode":"","inboxId":0}],\
            [0,"RESOLVED",1,0,"support",{"parkedId":0,"action":"apply","status":"DELIVERED","note":""}],\
            [0,"REDRIVEN",1,0,"timer",{"attempt":2,"reason":"PUBLISH_TIMEOUT"}],\
            [[1,"ACCEPTED",1,1780000000000000,"api",{"tenant":"","gateway":"sim"}],\
            [2,"PUBLISHED",1,100000,"poller-",{"attempt":1,"epoch":1,"confirmBy":"2026-01-01T00:00:00.000000Z"}],\
            [3,"CLAIMED",2,100000,"worker-",{"attempt":1,"worker":"worker-","deadline":"2026-01-01T00:00:00.000000Z"}],\
            [4,"PROVIDER_ACCEPTED",1,100000,"worker-",{"attempt":1,"gateway":"sim","providerId":""}],\
            [5,"RECEIPT",1,100000,"callbacks-",{"kind":"INTERMEDIATE","gateway":"sim","providerId":"","providerStatus":"ENROUTE",\
            "providerTimestamp":"2026-01-01T00:00:00Z","errorCode":null,"inboxId":1}],\
            [6,"RECEIPT",1,100000,"callbacks-",{"kind":"DELIVERED","gateway":"sim","providerId":"","providerStatus":"DELIVRD",\
            "providerTimestamp":"2026-01-01T00:00:00Z","errorCode":null,"inboxId":1}]]""";

    private static final byte[] DICTIONARY_1_BYTES = DICTIONARY_1.getBytes(StandardCharsets.UTF_8);
    /** A bound on what one snapshot may inflate to, so a corrupt row cannot exhaust the heap. */
    static final int MAX_INFLATED = 16 * 1024 * 1024;

    private SnapshotDeflate() {}

    static byte[] deflate(byte[] plain) {
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
        try {
            deflater.setDictionary(DICTIONARY_1_BYTES);
            deflater.setInput(plain);
            deflater.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream(plain.length / 3 + 64);
            byte[] buffer = new byte[1024];
            while (!deflater.finished()) {
                out.write(buffer, 0, deflater.deflate(buffer));
            }
            return out.toByteArray();
        } finally {
            deflater.end();
        }
    }

    /** The plain bytes; throws {@link DataFormatException} for anything that is not a whole stream of this format. */
    static byte[] inflate(byte[] packed) throws DataFormatException {
        Inflater inflater = new Inflater(true);
        try {
            inflater.setDictionary(DICTIONARY_1_BYTES);
            inflater.setInput(packed);
            ByteArrayOutputStream out = new ByteArrayOutputStream(packed.length * 6);
            byte[] buffer = new byte[4096];
            while (!inflater.finished()) {
                int n = inflater.inflate(buffer);
                if (n == 0 && !inflater.finished() && (inflater.needsInput() || inflater.needsDictionary())) {
                    throw new DataFormatException("the packed snapshot ends before its last block");
                }
                out.write(buffer, 0, n);
                if (out.size() > MAX_INFLATED) {
                    throw new DataFormatException("the packed snapshot inflates past " + MAX_INFLATED + " bytes");
                }
            }
            if (inflater.getRemaining() > 0) {
                throw new DataFormatException(
                        inflater.getRemaining() + " bytes follow the packed snapshot's last block");
            }
            return out.toByteArray();
        } finally {
            inflater.end();
        }
    }
}
