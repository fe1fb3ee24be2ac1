package dev.postern.bench;

/**
 * Counts the answers to requests with ids {@code first .. first+count-1}: each id must be answered
 * exactly once. Anything else is lost (never answered), a duplicate (answered again) or unexpected
 * (an id that was never sent, or none). Not thread-safe: one reader records, and the result is read
 * after that reader has finished.
 */
final class AnswerLedger {
    private final long first;
    private final byte[] answers;
    private int answered;
    private int duplicates;
    private int unexpected;
    private int failed;

    AnswerLedger(long first, int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative, got " + count);
        }
        this.first = first;
        this.answers = new byte[count];
    }

    /** Records one response; true when it answered an id not answered before. */
    boolean record(ResponseLine response) {
        long index = response.id() - first;
        if (response.id() == ResponseLine.NO_ID || index < 0 || index >= answers.length) {
            unexpected++;
            return false;
        }
        if (!response.ok()) {
            failed++;
        }
        if (answers[(int) index]++ != 0) {
            answers[(int) index] = 2;
            duplicates++;
            return false;
        }
        answered++;
        return true;
    }

    int expected() {
        return answers.length;
    }

    int answered() {
        return answered;
    }

    int lost() {
        return answers.length - answered;
    }

    int duplicates() {
        return duplicates;
    }

    int unexpected() {
        return unexpected;
    }

    /** Answers that were JSON-RPC errors or tool results with {@code isError: true}. */
    int failed() {
        return failed;
    }

    boolean clean() {
        return lost() == 0 && duplicates == 0 && unexpected == 0 && failed == 0;
    }

    String summary() {
        return "lost " + lost() + ", duplicated " + duplicates + ", unexpected " + unexpected + ", failed " + failed;
    }
}
