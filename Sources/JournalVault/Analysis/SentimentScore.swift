// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A number from −1 (negative) to +1 (positive) for an analysis's sentiment, which analysers
/// give as free text: a number from −1 to 1 is itself (`"0.4"`, `"-1"`), the labels
/// `positive`, `neutral` and `negative` (any case, surrounding white space ignored) are +1, 0
/// and −1, and anything else (`"calm"`, `"2"`) has no score.
///
/// ```swift
/// SentimentScore.score("Positive")   // 1
/// SentimentScore.score("-0.25")      // -0.25
/// SentimentScore.score("calm")       // nil
/// ```
public enum SentimentScore {
    public static func score(_ sentiment: String) -> Double? {
        let text = sentiment.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        switch text {
        case "positive": return 1
        case "neutral": return 0
        case "negative": return -1
        default:
            guard let number = Double(text), number.isFinite, (-1...1).contains(number) else { return nil }
            return number
        }
    }
}
