package domains

import "github.com/recollect-dev/recollect/pkg/memory"

// builtins are 000's three domains. Their Extract lists follow 000
// (Bernard's prompts) with 001's categories (Nebo: preferences, entities,
// decisions, styles, artifacts) and 004's types (policies, workflows,
// pitfalls, architecture) placed where they belong; each prompt's "Do NOT
// extract" section is the others' Extract lists plus the Exclude lines.
func builtins() []Domain {
	return []Domain{
		{
			ID: memory.DomainToolUsage, Name: "Tool usage", Heading: "Tool Usage Patterns", Order: 1,
			Description: "commands, tools, build/test/deploy procedures, errors and their fixes: how things get done on this system",
			Role: "You extract tool-usage knowledge from a conversation between a user and an AI agent: the operational " +
				"know-how of how things get done on this user's systems, so the agent can repeat what worked and avoid what failed.",
			Extract: []string{
				"shell commands and command sequences that accomplished a task, with what they do",
				"build, test, lint, run and deploy workflows, with the exact commands in their order",
				"which tools are used together, and in what order",
				"error messages and how they were resolved: the symptom, the cause and the fix",
				"pitfalls: commands, flags or approaches that failed or must be avoided, and why",
				"git workflows: the commands and steps for branching, committing, rebasing, tagging and releasing",
				"how this environment's tools behave: required flags, environment variables, ports, paths and versions needed to run things",
			},
			Exclude: []string{
				"one-off commands with no lasting value (listing a directory, printing a file)",
				"command output, logs and stack traces copied verbatim",
			},
			Types: []memory.Type{memory.TypeWorkflow, memory.TypePitfall, memory.TypePolicy, memory.TypeFact},
		},
		{
			ID: memory.DomainUserPreferences, Name: "User preferences", Heading: "User Preferences", Order: 2,
			Description: "how the user likes things done: communication, coding style, workflow conventions, standing instructions",
			Role: "You extract the user's preferences from a conversation between a user and an AI agent: how this user " +
				"likes things done, so the agent can work that way next time without being told again.",
			Extract: []string{
				"communication preferences: verbosity, tone, format, language and level of detail of answers",
				"coding style and conventions: indentation, naming, formatting, comments, error handling, testing habits",
				"workflow conventions the user wants followed: commit message style, branch naming and strategy, review habits",
				"explicit \"always do X\" and \"never do Y\" directives, and instructions or corrections the user repeats",
				"likes and dislikes about tools, libraries, languages and approaches, with the reason when given",
				"observations of the user's own communication style (terse, formal, dry humour, uses emoji) as type \"style\" with a key starting with \"style/\"",
			},
			Exclude: []string{
				"what the agent prefers or proposes unless the user agreed to it",
				"a preference the user stated only hypothetically or about someone else",
			},
			Types: []memory.Type{memory.TypePreference, memory.TypePolicy, memory.TypeStyle, memory.TypeDecision},
		},
		{
			ID: memory.DomainGeneral, Name: "General", Heading: "General Knowledge", Order: 3,
			Description: "project facts, architecture, decisions, people and everything else worth remembering",
			Role: "You extract general knowledge from a conversation between a user and an AI agent: the facts about " +
				"what things are in the user's world (projects, systems, people, decisions), so the agent knows them next time.",
			Extract: []string{
				"project structure and architecture: components, boundaries, data flow and the reasons for them",
				"the technical environment: languages, frameworks, libraries, services and their versions",
				"decisions made, with what was chosen, over what, and why",
				"people, teams, roles and relationships, including facts the user shares about themself (name, role, employer, location, timezone)",
				"business requirements, domain concepts and constraints from outside the code (deadlines, vendors, limits)",
				"API endpoints, database schemas and configuration details",
				"important artifacts produced in the conversation (a design, a document, a naming scheme) as type \"artifact\" with a key starting with \"artifact/\"",
			},
			Exclude: []string{
				"facts about the conversation itself (what was asked, what the agent is about to do)",
				"general knowledge anyone could look up that says nothing specific about this user or project",
			},
			Types: []memory.Type{memory.TypeFact, memory.TypeArchitecture, memory.TypeDecision, memory.TypeEntity, memory.TypeArtifact},
		},
	}
}
