/// One readable Markdown document: entries by day (each with its analyses), then the chats.
extension VaultSnapshot {
    public func markdown() -> String {
        var lines = ["# Journal", ""]
        let analysesByEntry = Dictionary(grouping: analyses, by: \.entryID)
        var currentDay: CivilDay?
        for entry in entries {
            if entry.localDay != currentDay {
                currentDay = entry.localDay
                lines += ["## \(entry.localDay)", ""]
            }
            let time = entry.created.timeOfDayText
            lines += ["### \(time) \(entry.title)\(entry.starred ? " ★" : "")", "", entry.content, ""]
            if !entry.tags.isEmpty { lines += ["*Tags: " + entry.tags.joined(separator: ", ") + "*", ""] }
            for analysis in analysesByEntry[entry.id] ?? [] {
                var facts: [String] = []
                if let sentiment = analysis.sentiment { facts.append("sentiment: \(sentiment)") }
                if !analysis.themes.isEmpty { facts.append("themes: " + analysis.themes.joined(separator: ", ")) }
                if analysis.entities != .null { facts.append("entities: `\(analysis.entities.serialized())`") }
                lines += ["> **Analysis** by \(analysis.model), \(analysis.processedAt.minuteText): "
                          + facts.joined(separator: "; "), ""]
            }
        }
        guard !threads.isEmpty else { return lines.joined(separator: "\n") }
        lines += ["# Chats", ""]
        let messagesByThread = Dictionary(grouping: messages, by: \.threadID)
        for thread in threads {
            lines += ["## \(thread.title.isEmpty ? "Untitled" : thread.title)", ""]
            for message in messagesByThread[thread.id] ?? [] {
                let who = message.role.rawValue + (message.model.map { " (\($0))" } ?? "")
                let when = message.timestamp.minuteText
                lines += ["**\(who)**, \(when):", "", message.content, ""]
            }
        }
        return lines.joined(separator: "\n")
    }
}
